"""Stop from any replica (issue 27 item 2): two replicas' stop signals on a real
PostgreSQL, each with its own engine and listener, in one test process."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update

from app.store.db import Database
from app.store.models import RunSignal, utcnow
from app.store.run_signals import LocalRunSignals, StopAnswer, run_signals_for
from app.store.run_signals_pg import PgRunSignals
from tests.replicas.conftest import terminate

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


async def test_a_stop_asked_on_b_stops_the_run_on_a_and_b_hears_its_writes(pair) -> None:
    a, b = pair
    c = conv()
    await a.signals.started(c, user_id="alice")
    answer = await b.signals.request_stop(c, by="alice")
    assert isinstance(answer, StopAnswer)
    assert (answer.stopped, answer.writes_in_flight, answer.replica) == (True, WRITES, "test:a")
    assert answer.answered and not answer.ended
    assert answer.elapsed_s < 1.0  # a notification, not a poll
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


async def test_a_run_that_ends_before_answering_says_it_ended(pair) -> None:
    a, b = pair
    c = conv()
    a.hold = asyncio.Event()  # A's stop is slow: the run ends first
    ticket = await a.signals.started(c, user_id="alice")
    asking = asyncio.create_task(b.signals.request_stop(c, wait_s=3))
    while not a.stops:
        await asyncio.sleep(0.01)
    await a.signals.finished(ticket)
    answer = await asking
    assert answer is not None and answer.ended and not answer.stopped
    assert answer.elapsed_s < 1.5
    a.hold.set()


async def test_a_replica_that_does_not_answer_in_time_is_reported_unanswered(pair) -> None:
    a, b = pair
    c = conv()
    a.hold = asyncio.Event()
    await a.signals.started(c, user_id="alice")
    answer = await b.signals.request_stop(c, wait_s=0.3)
    assert answer is not None and not answer.answered and not answer.stopped
    assert 0.3 <= answer.elapsed_s < 1.5
    a.hold.set()
    for _ in range(100):  # A answers late; the row keeps its answer for a later ask
        stored = row(b.db, c)
        if stored is not None and stored.stopped_at is not None:
            break
        await asyncio.sleep(0.02)
    late = await b.signals.request_stop(c)
    assert late is not None and late.stopped and late.writes_in_flight == WRITES


async def test_a_dead_replicas_run_counts_as_no_run(pair) -> None:
    a, b = pair
    c = conv()
    await a.signals.started(c, user_id="alice")
    with b.db.session() as s:  # A stopped beating long ago (it died)
        s.execute(
            update(RunSignal)
            .where(RunSignal.conv_id == c)  # type: ignore[arg-type]
            .values(heartbeat_at=utcnow() - timedelta(minutes=5))
        )
    assert await b.signals.running(c) is None
    assert await b.signals.request_stop(c) is None
    assert a.stops == []


async def test_the_heartbeat_keeps_a_long_run_visible(pg_db_url: str) -> None:
    a = Replica(pg_db_url, "slow-a", heartbeat_s=0.1, stale_after_s=0.5)
    b = Replica(pg_db_url, "slow-b", heartbeat_s=0.1, stale_after_s=0.5)
    try:
        await a.signals.listen(a.on_stop)
        c = conv()
        await a.signals.started(c, user_id="alice")
        await asyncio.sleep(1.0)  # twice the staleness: alive only by its heartbeat
        answer = await b.signals.request_stop(c)
        assert answer is not None and answer.stopped
    finally:
        await a.close()
        await b.close()


async def test_a_stop_sent_while_the_runner_was_not_listening_still_arrives(pair, pg_admin) -> None:
    a, b = pair
    c = conv()
    await a.signals.started(c, user_id="alice")
    listeners = pg_admin.execute(
        "SELECT pid FROM pg_stat_activity WHERE application_name = 'ss-tools run signals'"
    ).fetchall()
    assert len(listeners) == 2
    for (pid,) in listeners:  # both listeners lose their connections for a moment
        terminate(pg_admin, pid)
    answer = await b.signals.request_stop(c, wait_s=3)
    assert answer is not None and answer.stopped and answer.writes_in_flight == WRITES
    assert answer.elapsed_s < 2.5  # A's reconnect (1 s) and catch-up, B's look at the row
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
