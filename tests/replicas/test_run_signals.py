"""Stop from any replica: two replicas' stop signals on a real
PostgreSQL, each with its own engine and listener, in one test process.

No assert here depends on speed: a replica that must not answer is held (``Replica.hold``)
rather than hoped slow, a wait is for a condition (``tests.waiting``), and where the way
an answer came matters (its notification, not a look at the row) the row is looked at
only after the generous wait (``slow_polls``)."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.exc import OperationalError

from app.store import run_rows, run_signals_pg
from app.store.db import Database
from app.store.models import RunSignal, utcnow
from app.store.run_coordination import run_signals_for
from app.store.run_locks_pg import PgRunLocks
from app.store.run_signals import LocalRunSignals, StopAnswer
from app.store.run_signals_pg import PgRunSignals
from tests.replicas.conftest import terminate
from tests.waiting import WAIT_S, until

pytestmark = pytest.mark.postgres
WRITES = [{"call_id": "call-7", "tool_name": "deploy_dashboard"}]


def conv() -> str:
    return f"conv-{uuid.uuid4().hex[:8]}"


class Replica:
    """One replica's side: its database engine, its signals and the stops it was asked."""

    def __init__(self, url: str, name: str, **options: Any) -> None:
        self.db = Database.open(url)
        self.signals = PgRunSignals(self.db, replica=f"test:{name}", **options)
        self.stops: list[str] = []
        self.hold: asyncio.Event | None = None  # set: on_stop waits for it

    async def on_stop(self, conv_id: str) -> list[dict[str, str]]:
        self.stops.append(conv_id)
        if self.hold is not None:
            await self.hold.wait()
        return WRITES

    async def close(self) -> None:
        await self.signals.aclose()
        self.db.dispose()


@pytest.fixture
async def pair(pg_db_url: str) -> AsyncIterator[tuple[Replica, Replica]]:
    a, b = Replica(pg_db_url, "a", heartbeat_s=0.2), Replica(pg_db_url, "b", heartbeat_s=0.2)
    await a.signals.listen(a.on_stop)
    await b.signals.listen(b.on_stop)
    yield a, b
    await a.close()
    await b.close()


def row(db: Database, conv_id: str) -> RunSignal | None:
    with db.session() as s:
        return s.get(RunSignal, conv_id)


@pytest.fixture
def slow_polls(monkeypatch: pytest.MonkeyPatch) -> None:
    """An asker looks at the row only after the whole wait: an answer before it came by
    its notification."""
    monkeypatch.setattr(run_signals_pg, "POLL_S", WAIT_S * 2)


def age(db: Database, conv_id: str, **ago: float) -> None:
    """Set the row's heartbeat back (``minutes=5``): as if its replica had not beaten."""
    with db.session() as s:
        s.execute(
            update(RunSignal)
            .where(RunSignal.conv_id == conv_id)  # type: ignore[arg-type]
            .values(heartbeat_at=utcnow() - timedelta(**ago))
        )


async def test_a_stop_asked_on_b_stops_the_run_on_a_and_b_hears_its_writes(
    pair, slow_polls
) -> None:
    a, b = pair
    c = conv()
    await a.signals.started(c, user_id="alice")
    answer = await b.signals.request_stop(c, by="alice", wait_s=WAIT_S)
    assert isinstance(answer, StopAnswer)
    assert (answer.stopped, answer.writes_in_flight, answer.replica) == (True, WRITES, "test:a")
    assert answer.answered and not answer.ended
    assert answer.elapsed_s < WAIT_S  # by A's notification: the row was never looked at
    assert a.stops == [c] and b.stops == []
    stored = row(a.db, c)
    assert stored is not None and stored.stopped_at is not None
    assert stored.stop_requested_by == "alice" and stored.writes_in_flight == WRITES


async def test_asking_again_answers_the_same_without_stopping_twice(pair) -> None:
    a, b = pair
    c = conv()
    await a.signals.started(c, user_id="alice")
    first = await b.signals.request_stop(c)
    second = await b.signals.request_stop(c)
    assert first is not None and second is not None
    assert second.stopped and second.writes_in_flight == WRITES
    assert a.stops == [c]


async def test_no_run_anywhere_is_none(pair) -> None:
    a, b = pair
    c = conv()
    assert await b.signals.request_stop(c) is None
    ticket = await a.signals.started(c, user_id="alice")
    await a.signals.finished(ticket)
    assert await b.signals.request_stop(c) is None
    assert row(a.db, c) is None  # the row goes with the run
    assert a.stops == []


async def test_any_replica_sees_where_a_conversation_runs_and_for_whom(pair) -> None:
    a, b = pair
    c = conv()
    assert await b.signals.running(c) is None
    await a.signals.started(c, user_id="alice")
    info = await b.signals.running(c)
    assert info is not None
    assert (info.replica, info.user_id, info.stop_requested_at) == ("test:a", "alice", None)


async def test_a_stop_on_the_running_replica_itself_needs_no_round_trip(pair) -> None:
    a, _ = pair
    c = conv()
    await a.signals.started(c, user_id="alice")
    answer = await a.signals.request_stop(c)
    assert answer is not None and answer.stopped and answer.writes_in_flight == WRITES
    assert a.stops == [c]


@pytest.mark.parametrize(
    ("stopped", "heard"),
    [
        # the run finished on its own while A's answer was on its way: "ended", not stopped
        pytest.param(False, (False, True), id="ended-on-its-own"),
        # A threw the stop switch and the run ended before A's answer was written (a busy
        # machine): its end says it was stopped, never "nothing to stop"
        pytest.param(True, (True, True), id="stopped-then-ended"),
    ],
)
async def test_a_run_that_ends_before_answering_says_whether_it_was_stopped(
    pair, slow_polls, stopped: bool, heard: tuple[bool, bool]
) -> None:
    a, b = pair
    c = conv()
    a.hold = asyncio.Event()  # A's answer is held: the run ends first
    ticket = await a.signals.started(c, user_id="alice")
    asking = asyncio.create_task(b.signals.request_stop(c, wait_s=WAIT_S))
    await until(lambda: a.stops, "A never heard the stop")
    await a.signals.finished(ticket, stopped=stopped)
    answer = await asking
    assert answer is not None and (answer.stopped, answer.ended) == heard
    assert answer.answered and answer.elapsed_s < WAIT_S  # by the end's notification
    a.hold.set()


async def test_a_replica_that_does_not_answer_in_time_is_reported_unanswered(pair) -> None:
    a, b = pair
    c = conv()
    a.hold = asyncio.Event()  # A cannot answer until released
    await a.signals.started(c, user_id="alice")
    answer = await b.signals.request_stop(c, wait_s=0.3)
    assert answer is not None and not answer.answered and not answer.stopped
    assert answer.elapsed_s >= 0.3  # it waited its while
    stored = row(b.db, c)
    assert stored is not None and stored.stop_requested_at is not None  # recorded, durable
    a.hold.set()  # A answers late; the row keeps its answer for a later ask
    await until(lambda: (r := row(b.db, c)) is not None and r.stopped_at, "A never answered")
    late = await b.signals.request_stop(c)
    assert late is not None and late.stopped and late.writes_in_flight == WRITES


async def test_a_stop_whose_notification_never_came_is_honoured_at_the_next_heartbeat(
    pair,
) -> None:
    a, b = pair
    c = conv()
    await a.signals.started(c, user_id="alice")
    with b.db.session() as s:  # the request is on the row, its NOTIFY was lost
        s.execute(
            update(RunSignal)
            .where(RunSignal.conv_id == c)  # type: ignore[arg-type]
            .values(stop_requested_at=utcnow(), stop_requested_by="alice")
        )
    await until(lambda: a.stops, "A's heartbeat never picked the stop up")
    assert a.stops == [c]
    await until(lambda: (r := row(b.db, c)) is not None and r.stopped_at, "A never answered")
    answer = await b.signals.request_stop(c)
    assert answer is not None and answer.stopped and answer.writes_in_flight == WRITES


async def test_an_asker_that_finds_the_row_gone_waits_for_the_word_of_the_runs_end(
    pair, pg_admin, pg_db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a busy machine the asker may look at the row after the run's end deleted it
    and before it has read the end's notification: it waits for it rather than saying
    "ended" of a run that was stopped."""
    _, b = pair
    a = Replica(pg_db_url, "quiet", heartbeat_s=3600)  # no heartbeat writes its row again
    await a.signals.listen(a.on_stop)
    c = conv()
    a.hold = asyncio.Event()  # A never answers by itself
    ticket = await a.signals.started(c, user_id="alice")
    looked: list[RunSignal | None] = []
    real_live_run = run_rows.live_run

    def live_run(session: Any, **kwargs: Any) -> RunSignal | None:
        looked.append(found := real_live_run(session, **kwargs))
        return found

    monkeypatch.setattr(run_rows, "live_run", live_run)
    monkeypatch.setattr(run_signals_pg, "POLL_S", 0.05)
    asking = asyncio.create_task(b.signals.request_stop(c, wait_s=WAIT_S))
    await until(lambda: a.stops, "A never heard the stop")
    pg_admin.execute("DELETE FROM run_signal WHERE conv_id = %s", (c,))  # its end, unheard
    await until(lambda: looked and looked[-1] is None, "B never looked at the row")
    word = {"conv_id": c, "run_id": ticket.run_id, "stopped": True, "ended": True}
    pg_admin.execute("SELECT pg_notify('ss_tools_run_answer', %s)", (json.dumps(word),))
    answer = await asking
    assert answer is not None and answer.stopped and answer.ended
    a.hold.set()
    await a.close()


async def test_an_answer_about_another_run_of_the_conversation_is_not_taken(
    pair, pg_admin, slow_polls
) -> None:
    a, b = pair
    c = conv()
    a.hold = asyncio.Event()
    await a.signals.started(c, user_id="alice")
    asking = asyncio.create_task(b.signals.request_stop(c, wait_s=WAIT_S))
    await until(lambda: a.stops, "A never heard the stop")
    late = json.dumps({"conv_id": c, "run_id": "an-earlier-run", "stopped": False, "ended": True})
    pg_admin.execute("SELECT pg_notify('ss_tools_run_answer', %s)", (late,))
    a.hold.set()  # now A answers about the run that was asked
    answer = await asking
    assert answer is not None and answer.stopped and not answer.ended


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


async def test_a_stop_sent_while_the_runner_was_not_listening_still_arrives(pair, pg_admin) -> None:
    a, b = pair
    c = conv()
    await a.signals.started(c, user_id="alice")

    def two_listeners() -> list[tuple[int]] | None:
        pids = pg_admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'ss-tools run signals'"
        ).fetchall()
        return pids if len(pids) == 2 else None

    # An earlier test's listener has closed its connection, but on a loaded machine its
    # server process can still be ending: wait until this pair's two are the only ones.
    pids = await until(two_listeners, "the pair's two listeners are not the only ones")
    for (pid,) in pids:  # both listeners lose their connections for a moment
        terminate(pg_admin, pid)
    answer = await b.signals.request_stop(c, wait_s=WAIT_S)
    assert answer is not None and answer.stopped and answer.writes_in_flight == WRITES
    assert answer.elapsed_s < WAIT_S  # A's reconnect and catch-up, B's look at the row
    assert a.stops == [c]


async def test_sqlite_keeps_runs_in_process(sqlite_file_url: str) -> None:
    db = Database.open(sqlite_file_url)
    signals = run_signals_for(db)
    assert isinstance(signals, LocalRunSignals)
    await signals.listen(lambda _c: asyncio.sleep(0, []))
    ticket = await signals.started("c", user_id="alice")
    assert await signals.request_stop("c") is None and await signals.running("c") is None
    await signals.finished(ticket)
    await signals.aclose()
    db.dispose()


def test_postgres_gets_listen_notify(pg_db_url: str) -> None:
    db = Database.open(pg_db_url)
    assert isinstance(run_signals_for(db), PgRunSignals)
    db.dispose()
