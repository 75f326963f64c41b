"""Stop from any replica: two replicas' stop signals on a real PostgreSQL, each with its
own engine and listener, in one test process. A stop asked on one replica reaches the run
on the other and comes back with its answer (stopped, ended, unanswered in time), also
when its notification was lost or a listener reconnected; SQLite keeps runs in process.

No assert here depends on speed: a replica that must not answer is held (``Replica.hold``)
rather than hoped slow, a wait is for a condition (``tests.waiting``), and where the way
an answer came matters (its notification, not a look at the row) the row is looked at
only after the generous wait (``slow_polls``)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from sqlalchemy import update

from app.store import run_rows, run_signals_pg
from app.store.db import Database
from app.store.models import RunSignal, utcnow
from app.store.run_coordination import run_signals_for
from app.store.run_signals import LocalRunSignals, StopAnswer
from app.store.run_signals_pg import PgRunSignals
from tests.replicas.conftest import terminate
from tests.replicas.signal_pair import WRITES, Replica, conv, row
from tests.waiting import WAIT_S, until

pytestmark = pytest.mark.postgres


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


async def test_a_stop_sent_while_the_runner_was_not_listening_still_arrives(pair, pg_admin) -> None:
    a, b = pair
    c = conv()
    await a.signals.started(c, user_id="alice")

    def two_listeners() -> list[tuple[int]] | None:
        pids = pg_admin.execute(
            "SELECT pid FROM pg_stat_activity WHERE application_name = 'ss-tools run signals'"
            " AND datname = current_database()"
        ).fetchall()
        return pids if len(pids) == 2 else None

    # pg_stat_activity lists the whole cluster, where the session's replicas behind nginx
    # keep a listener on a database of their own once a turn ran there: only this module's
    # database counts. And an earlier test's listener has closed its connection, but on a
    # loaded machine its server process can still be ending: wait until the pair's two are
    # the only ones here.
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
