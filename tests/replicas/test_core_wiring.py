"""How the core uses the replicas' run control (``app.agent.core.control``: ReplicaRuns), in one
process: on SQLite nothing of it is touched; on PostgreSQL two replicas' worth of
``ReplicaRuns`` refuse each other's conversation until the run's close path releases it;
the running side's stop; a door's first event taken before its stream."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from app.agent.core import control as control_module
from app.agent.core.control import TurnRegistry, opened, stop_local
from app.agent.core.replica_runs import ReplicaRuns
from app.agent.core.requests import RequestRefused
from app.events import Event, TokenEvent
from app.store.db import Database
from app.store.run_signals_pg import PgRunSignals
from bench.agent_bench import bench_parts, bench_settings
from tests.waiting import WAIT_S, until


async def test_a_core_on_sqlite_has_no_cross_replica_control(tmp_path: Path) -> None:
    parts = bench_parts(bench_settings(tmp_path))
    try:
        assert parts.core.replica_runs() is None  # the in-process registry alone, as before
    finally:
        parts.close()


async def test_the_running_side_stops_its_run_and_answers_its_writes() -> None:
    registry = TurnRegistry()
    assert await stop_local(None) is None  # no run here
    control = await registry.begin("c1", "ops")
    write = asyncio.get_running_loop().create_future()
    control.track(write, call_id="call_1", tool_name="deploy_dashboard", write=True)
    assert await stop_local(control) == [{"call_id": "call_1", "tool_name": "deploy_dashboard"}]
    assert control.stopped and not write.cancelled()  # a write goes on to its end
    write.set_result(None)
    registry.abandon(control)


async def test_a_run_whose_consumer_is_done_answers_nothing_to_stop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(control_module, "ENDING_WAIT_S", WAIT_S)  # a wait a busy machine keeps
    registry = TurnRegistry()
    control = await registry.begin("c1", "ops")

    async def bookkeeping() -> None:
        await asyncio.sleep(0.05)

    registry.end(control, bookkeeping)  # closing: the turn has ended, its bookkeeping runs
    assert await stop_local(control) is None
    assert control.finished.done() and not control.stopped  # it waited for the run's end


async def test_a_refusal_at_the_start_of_a_run_comes_before_any_stream() -> None:
    closed: list[str] = []

    async def refused() -> AsyncIterator[Event]:
        raise RequestRefused(409, "conversation_busy", "busy")
        yield TokenEvent(text="never")  # an async generator

    with pytest.raises(RequestRefused) as caught:
        await opened(refused())
    assert caught.value.status == 409 and caught.value.error == "conversation_busy"

    async def run() -> AsyncIterator[Event]:
        try:
            for text in ("a", "b", "c"):
                yield TokenEvent(text=text)
        finally:
            closed.append("run")

    events = await opened(run())
    assert [e.text async for e in events if isinstance(e, TokenEvent)] == ["a", "b", "c"]
    assert closed == ["run"]

    async def empty() -> AsyncIterator[Event]:
        return
        yield TokenEvent(text="never")

    assert [e async for e in await opened(empty())] == []

    closed.clear()  # a door that stops reading closes the run
    events = await opened(run())
    async for _ in events:
        break
    await events.aclose()  # type: ignore[attr-defined]
    assert closed == ["run"]


@pytest.mark.postgres
async def test_two_replicas_take_a_conversation_in_turn(pg_db_url: str) -> None:
    db_a, db_b = Database.open(pg_db_url), Database.open(pg_db_url)

    async def nothing(_conv_id: str) -> list[dict[str, str]] | None:
        return None

    a = ReplicaRuns(db_a, nothing, signals=PgRunSignals(db_a, replica="test:1:aaaa"))
    b = ReplicaRuns(db_b, nothing, signals=PgRunSignals(db_b, replica="test:2:bbbb"))
    on_a, on_b = TurnRegistry(), TurnRegistry()
    try:
        running = await on_a.begin("wired-1", "ops")
        await a.claim(running, wait_s=0)
        assert (await b.running("wired-1")) is not None  # announced to every replica
        second = await on_b.begin("wired-1", "ops")
        t0 = time.monotonic()
        with pytest.raises(RequestRefused) as caught:
            await b.claim(second, wait_s=0.3)
        assert caught.value.status == 409 and caught.value.error == "conversation_busy"
        assert time.monotonic() - t0 >= 0.3  # waited its while, then refused
        on_b.abandon(second)

        async def after() -> None:
            return None

        on_a.end(running, after)  # the run's close path releases lock and row
        await on_a.drain()
        assert running.release is None and await b.running("wired-1") is None
        third = await on_b.begin("wired-1", "ops")
        await b.claim(third, wait_s=0)  # free at once
        assert third.release is not None
        on_b.end(third, after)
        await on_b.drain()
    finally:
        await a.aclose()
        await b.aclose()
        db_a.dispose()
        db_b.dispose()


@pytest.mark.postgres
async def test_a_run_stopped_and_ended_before_its_answer_is_written_is_heard_as_stopped(
    pg_db_url: str,
) -> None:
    """The race of a busy machine: A throws the stop switch, its run ends and its row goes
    before A's answer is written. B still hears "stopped", from the run's end."""
    db_a, db_b = Database.open(pg_db_url), Database.open(pg_db_url)
    on_a = TurnRegistry()
    answer_written = asyncio.Event()  # A's answer is written only when the test says

    async def stop_on_a(conv_id: str) -> list[dict[str, str]] | None:
        writes = await stop_local(on_a.active(conv_id))
        await answer_written.wait()
        return writes

    async def nothing(_conv_id: str) -> list[dict[str, str]] | None:
        return None

    a = ReplicaRuns(db_a, stop_on_a, signals=PgRunSignals(db_a, replica="test:1:aaaa"))
    b = ReplicaRuns(db_b, nothing, signals=PgRunSignals(db_b, replica="test:2:bbbb"))
    try:
        running = await on_a.begin("wired-race", "ops")
        await a.claim(running, wait_s=0)
        asking = asyncio.create_task(b.signals.request_stop("wired-race", wait_s=WAIT_S))
        await until(lambda: running.stopped, "A never threw the stop switch")

        async def after() -> None:
            return None

        on_a.end(running, after)  # the stopped run ends; its row goes, with its outcome
        await on_a.drain()
        answer = await asking
        assert answer is not None and answer.stopped and answer.ended  # not "it ended"
    finally:
        answer_written.set()
        await a.aclose()
        await b.aclose()
        db_a.dispose()
        db_b.dispose()
