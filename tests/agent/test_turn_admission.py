"""A turn's first event comes before anything waits; graph runs are admitted a limited
number at a time (issue 8 item 9); every audit row and the conversation list's row are
committed before ``done``; the list's badge follows each run's end."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from sqlalchemy import create_engine, text

from app.agent.core import prepare_turn
from app.agent.events import BaseEvent, ConfirmRequiredEvent, DoneEvent, TurnStartEvent
from app.auth import Principal
from tests.agent.scripted import call, final_from_tool
from tests.agent.test_handler import recording_tools


def _committed(harness: Any, sql: str, **params: Any) -> list[Any]:
    """What another connection sees: committed rows only."""
    engine = create_engine(harness.parts.settings.db_url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(sql), params))
    finally:
        engine.dispose()


async def _request(harness: Any, message: str, conv_id: str | None = None) -> Any:
    return await prepare_turn(
        core=harness.core,
        token=harness.token(),
        message=message,
        history=None,
        conv_id=conv_id or uuid.uuid4().hex,
        env_id="dev",
        uicontext=None,
        channel="page",
    )


async def test_every_audit_row_and_the_list_row_are_committed_before_done(
    harness: Any,
) -> None:
    search = call("search_dashboards", query="sales")
    harness.use(search, final_from_tool, tools=recording_tools([]))
    req = await _request(harness, "find dashboards about sales")
    at_done: list[Any] = []
    conversations_at_done: list[Any] = []
    async for ev in harness.core.run_turn(req):
        if isinstance(ev, DoneEvent):
            assert ev.state == "idle"
            at_done += _committed(
                harness, "SELECT kind FROM audit_event WHERE conv_id = :c", c=req.conv_id
            )
            conversations_at_done += _committed(
                harness, "SELECT owner FROM conversation WHERE conv_id = :c", c=req.conv_id
            )
    await harness.core.turns().drain()
    kinds = sorted(kind for (kind,) in at_done)
    assert "tool_filtered" in kinds and len(kinds) >= 2  # the turn's rows and the call's
    final = _committed(harness, "SELECT kind FROM audit_event WHERE conv_id = :c", c=req.conv_id)
    assert sorted(kind for (kind,) in final) == kinds  # nothing was still on its way
    assert conversations_at_done == [("alice",)]


async def test_turn_start_comes_at_once_and_the_run_waits_for_a_free_slot(harness: Any) -> None:
    harness.configure(agent_max_concurrent_runs=1)
    release = asyncio.Event()
    order: list[str] = []

    async def slow_search(args: Any, deps: Any) -> dict[str, Any]:
        order.append("A tool")
        await release.wait()
        return {"count": 0, "dashboards": []}

    harness.use(
        call("search_dashboards", query="sales"),
        final_from_tool,
        "Hello.",
        tools={"search_dashboards": slow_search},
    )
    a = await _request(harness, "find dashboards about sales")
    b = await _request(harness, "hello")
    b_started = asyncio.Event()

    async def consume(name: str, req: Any) -> list[BaseEvent]:
        seen = []
        async for ev in harness.core.run_turn(req):
            seen.append(ev)
            order.append(f"{name} {ev.type}")
            if name == "B" and isinstance(ev, TurnStartEvent):
                b_started.set()
        return seen

    task_a = asyncio.create_task(consume("A", a))
    while "A tool" not in order:  # A holds the only slot, inside its tool
        await asyncio.sleep(0)
    task_b = asyncio.create_task(consume("B", b))
    await b_started.wait()  # B's first event came although no slot is free
    assert harness.core.turns().full
    assert [o for o in order if o.startswith("B")] == ["B turn_start"]
    release.set()
    events_a, events_b = await asyncio.gather(task_a, task_b)
    assert isinstance(events_a[-1], DoneEvent) and isinstance(events_b[-1], DoneEvent)
    after_a = order.index("A done")
    assert all(order.index(o) > after_a for o in order if o.startswith("B") and o != "B turn_start")
    await harness.core.turns().drain()
    assert not harness.core.turns().full  # every slot given back


async def test_a_stream_closed_early_gives_its_slot_back(harness: Any) -> None:
    harness.configure(agent_max_concurrent_runs=1)
    harness.use("Hello.", "Hello again.")
    first = harness.core.run_turn(await _request(harness, "hi"))
    assert isinstance(await anext(first), TurnStartEvent)
    await anext(first)  # admitted: holds the only slot
    assert harness.core.turns().full
    await first.aclose()  # the page or the HTTP client went away
    assert not harness.core.turns().full
    events = [ev async for ev in harness.core.run_turn(await _request(harness, "hi again"))]
    assert isinstance(events[-1], DoneEvent)


async def test_the_list_badge_follows_each_run_to_its_end(harness: Any) -> None:
    """A confirmation waiting sets the badge; answering clears it; a new message that
    supersedes a waiting confirmation clears it too."""
    harness.use(
        call("deploy_dashboard", dashboard_id="42", target_env="prod"),
        final_from_tool,
        call("deploy_dashboard", dashboard_id="43", target_env="prod"),
        "Fine, not now.",
        tools=recording_tools([]),
    )
    alice = Principal(user_id="alice", role="admin")

    async def badge() -> bool:
        await harness.core.turns().drain()
        rows = await harness.core.conversations(alice)
        return next(r for r in rows if r.conv_id == harness.conv_id).pending_confirmation

    events = await harness.turn("deploy 42 to prod")
    conf = next(e for e in events if isinstance(e, ConfirmRequiredEvent))
    assert await badge() is True
    after = await harness.answer(conf.confirmation_id, "confirm")
    assert isinstance(after[-1], DoneEvent) and after[-1].state == "idle"
    assert await badge() is False
    events = await harness.turn("deploy 43 to prod", conv_id=harness.conv_id)
    assert events[-1].state == "awaiting_confirmation" and await badge() is True
    events = await harness.turn("never mind", conv_id=harness.conv_id)
    assert events[-1].state == "idle" and await badge() is False
