"""Which runs count as live across replicas, on a real PostgreSQL: a dead replica's run is
no run, a busy one's stays live while it holds the run lock, the heartbeat keeps a long
run visible and only the runs its replica still runs, a row left behind by an ended run
is answered "ended", and a stop that meets a run's row being written or deleted is
neither lost nor taken for a leftover."""

from __future__ import annotations

import asyncio
import threading
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from app.store import run_rows
from app.store.db import Database
from app.store.models import RunSignal, utcnow
from app.store.run_locks_pg import PgRunLocks
from tests.replicas.signal_pair import WRITES, Replica, age, conv, row
from tests.waiting import WAIT_S, until

pytestmark = pytest.mark.postgres


async def test_a_dead_replicas_run_counts_as_no_run(pair) -> None:
    a, b = pair
    c = conv()
    await a.signals.started(c, user_id="alice")
    age(b.db, c, minutes=5)  # A stopped beating long ago (it died), and holds no lock
    assert await b.signals.running(c) is None
    assert await b.signals.request_stop(c) is None
    assert a.stops == []


async def test_a_busy_replicas_run_stays_live_while_it_holds_the_run_lock(
    pair, pg_db_url: str
) -> None:
    _, b = pair  # B beats (and cleans up stale rows) every 0.2 s
    busy = Replica(pg_db_url, "busy", heartbeat_s=3600)  # far too busy to beat in time
    locks = PgRunLocks(pg_db_url)
    c = conv()
    lease = await locks.try_acquire(c)  # it runs the conversation: it holds its lock
    assert lease is not None
    try:
        await busy.signals.started(c, user_id="alice")
        age(b.db, c, minutes=5)
        info = await b.signals.running(c)
        assert info is not None and info.replica == "test:busy"  # never "nothing to stop"
        with b.db.session() as s:  # a heartbeat's clean-up keeps it too
            run_rows.forget_stale(s, stale_before=utcnow())
        assert row(b.db, c) is not None
    finally:
        await locks.release(lease)
        await locks.aclose()
        await busy.close()
    assert await b.signals.running(c) is None  # the lock freed: a leftover
    with b.db.session() as s:
        run_rows.forget_stale(s, stale_before=utcnow())
    assert row(b.db, c) is None


def test_a_heartbeat_keeps_alive_only_the_runs_its_replica_still_runs(pg_db_url: str) -> None:
    db = Database.open(pg_db_url)
    then, now = utcnow() - timedelta(minutes=5), utcnow()
    gone, running = conv(), conv()
    try:
        with db.session() as s:  # a run whose row's deletion failed, and a running one
            run_rows.record_start(
                s, conv_id=gone, run_id="r1", replica="test:h", user_id=None, now=then
            )
            run_rows.record_start(
                s, conv_id=running, run_id="r2", replica="test:h", user_id=None, now=then
            )
            run_rows.beat(s, replica="test:h", runs={running: ("r2", None)}, now=now)
        kept, left = row(db, running), row(db, gone)
        assert kept is not None and kept.heartbeat_at == now
        assert left is not None and left.heartbeat_at == then  # left to go stale
    finally:
        db.dispose()


async def test_a_run_is_the_heartbeats_only_once_its_row_is_written(
    pair, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A heartbeat writes a missing row of a run of ours again: had it seen the run before
    its row was written, the two inserts would collide and the turn would be refused."""
    a, _ = pair
    c = conv()
    seen: list[dict[str, Any]] = []
    real_start = run_rows.record_start

    def record_start(session: Any, **kwargs: Any) -> RunSignal:
        seen.append(a.signals._runs())  # what a heartbeat at this moment would write
        return real_start(session, **kwargs)

    monkeypatch.setattr(run_rows, "record_start", record_start)
    ticket = await a.signals.started(c, user_id="alice")
    assert seen and c not in seen[0]
    assert a.signals._runs()[c] == (ticket.run_id, "alice")


async def test_a_heartbeat_beside_a_runs_end_leaves_no_row_behind(
    pair, pg_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run ends (its row deleted) while a heartbeat that still counted it writes the
    row again: the heartbeat deletes it, so no replica reads a finished run as running."""
    _, b = pair
    a = Replica(pg_db_url, "beats-by-hand", heartbeat_s=3600)  # only the test's heartbeat
    c = conv()
    ticket = await a.signals.started(c, user_id="alice")
    counted = a.signals._runs()  # the heartbeat took its list of runs ...
    await a.signals.finished(ticket)  # ... then the run ended and its row went ...
    written: list[list[str]] = []
    real_beat = run_rows.beat

    def beat(session: Any, **kwargs: Any) -> list[str]:
        written.append(real_beat(session, **kwargs))
        return written[-1]

    monkeypatch.setattr(run_rows, "beat", beat)
    a.signals._runs = lambda: counted  # type: ignore[method-assign]
    await a.signals._beat_once()  # ... then the heartbeat wrote it again, with that list
    assert written == [[c]]
    assert row(b.db, c) is None and await b.signals.running(c) is None
    await a.close()


async def test_a_row_left_behind_by_a_run_that_ended_is_answered_ended(
    pair, slow_polls, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run's row outlived it (its deletion failed): a stop asked of it hears "ended"
    from the replica it names, at once, instead of "accepted" for a run nobody runs."""
    a, b = pair
    c = conv()
    ticket = await a.signals.started(c, user_id="alice")
    real_finish = run_rows.record_finish

    def lost(session: Any, **kwargs: Any) -> bool:
        raise OperationalError("DELETE", {}, Exception("the database went away"))

    monkeypatch.setattr(run_rows, "record_finish", lost)
    with pytest.raises(OperationalError):
        await a.signals.finished(ticket)
    monkeypatch.setattr(run_rows, "record_finish", real_finish)
    assert row(b.db, c) is not None  # left behind
    answer = await b.signals.request_stop(c, wait_s=WAIT_S)
    assert answer is not None and answer.ended and not answer.stopped and answer.answered
    assert a.stops == [] and row(b.db, c) is None
    assert await a.signals.request_stop(c) is None  # and on its own replica: nothing runs


async def test_a_stop_asked_while_the_runs_row_is_being_written_is_honoured(
    pair, monkeypatch: pytest.MonkeyPatch
) -> None:
    a, _ = pair
    c = conv()
    written, go_on = threading.Event(), threading.Event()
    real_start = run_rows.record_start

    def record_start(session: Any, **kwargs: Any) -> RunSignal:
        stored = real_start(session, **kwargs)
        session.commit()  # visible to every replica, while ``started`` has not returned
        written.set()
        go_on.wait(WAIT_S)
        return stored

    monkeypatch.setattr(run_rows, "record_start", record_start)
    try:
        starting = asyncio.create_task(a.signals.started(c, user_id="alice"))
        await until(written.is_set, "the run's row was never written")
        stored = row(a.db, c)
        assert stored is not None
        writes = await a.signals._answer(c, stored.run_id)  # its stop's notification
    finally:
        go_on.set()
    await starting
    assert writes == WRITES and a.stops == [c]  # stopped, not taken for a leftover
    stored = row(a.db, c)
    assert stored is not None and stored.stopped_at is not None


async def test_a_stop_heard_while_the_runs_row_is_being_deleted_leaves_the_answer_to_its_end(
    pair, slow_polls, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run was stopped and its end is being written when a stop's notification (or a
    heartbeat) asks again: that ask must not take the row for a leftover and answer
    "ended" first; the end says "stopped"."""
    a, b = pair
    c = conv()
    a.hold = asyncio.Event()  # A's own answer never comes: only its end answers
    ticket = await a.signals.started(c, user_id="alice")
    asking = asyncio.create_task(b.signals.request_stop(c, wait_s=WAIT_S))
    await until(lambda: a.stops, "A never heard the stop")
    deleting, go_on = threading.Event(), threading.Event()
    real_finish = run_rows.record_finish

    def record_finish(session: Any, **kwargs: Any) -> bool:
        deleting.set()
        go_on.wait(WAIT_S)
        return real_finish(session, **kwargs)

    monkeypatch.setattr(run_rows, "record_finish", record_finish)
    ending = asyncio.create_task(a.signals.finished(ticket, stopped=True))
    try:
        await until(deleting.is_set, "the run's end never began")
        assert await a.signals._answer(c, ticket.run_id) is None  # asked again, meanwhile
    finally:
        go_on.set()
    await ending
    answer = await asking
    assert answer is not None and (answer.stopped, answer.ended) == (True, True)
    a.hold.set()


async def test_the_heartbeat_keeps_a_long_run_visible(pair) -> None:
    a, b = pair  # heartbeats every 0.2 s
    c = conv()
    await a.signals.started(c, user_id="alice")
    age(b.db, c, minutes=5)  # a long run: only its heartbeat keeps it visible
    await until(lambda: b.signals.running(c), "A's heartbeat never renewed its row")
    answer = await b.signals.request_stop(c, wait_s=WAIT_S)
    assert answer is not None and answer.stopped
