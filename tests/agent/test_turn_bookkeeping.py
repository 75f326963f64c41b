"""A turn's first event comes before anything waits (the core is cheap);
every audit row and the conversation list's row are committed before ``done``; the list's
badge follows each run's end."""

from __future__ import annotations

from typing import Any

from sqlalchemy import create_engine, text

from app.auth import Principal
from app.events import ConfirmRequiredEvent, DoneEvent, TurnStartEvent
from tests.agent.scripted import call, final_from_tool, recording_tools


def _committed(harness: Any, sql: str, **params: Any) -> list[Any]:
    """What another connection sees: committed rows only."""
    engine = create_engine(harness.parts.settings.db_url)
    try:
        with engine.connect() as conn:
            return list(conn.execute(text(sql), params))
    finally:
        engine.dispose()


async def _request(harness: Any, message: str, conv_id: str | None = None) -> Any:
    return await harness.turn_request(message, conv_id=conv_id)


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


async def test_turn_start_comes_before_the_turn_touches_the_checkpoint_or_database(
    harness: Any, monkeypatch: Any
) -> None:
    """The first event is built from the checked request alone: a burst of streams all
    hear back at once, whatever the checkpoint and the database are doing."""
    harness.use("Hello.")
    req = await _request(harness, "hi")
    graph = await harness.core.graph()
    touched: list[str] = []
    read_state = graph.aget_state

    async def watched_read(*args: Any, **kwargs: Any) -> Any:
        touched.append("checkpoint")
        return await read_state(*args, **kwargs)

    monkeypatch.setattr(graph, "aget_state", watched_read)
    monkeypatch.setattr(harness.core.audit.committer, "submit", lambda _: touched.append("audit"))
    events = harness.core.run_turn(req)
    first = await anext(events)
    assert isinstance(first, TurnStartEvent) and touched == []
    monkeypatch.undo()
    rest = [ev async for ev in events]
    assert isinstance(rest[-1], DoneEvent) and rest[-1].state == "idle"


async def test_a_stream_closed_early_frees_the_conversation(harness: Any) -> None:
    harness.use("Hello.", "Hello again.")
    req = await _request(harness, "hi")
    first = harness.core.run_turn(req)
    assert isinstance(await anext(first), TurnStartEvent)
    await first.aclose()  # the page or the HTTP client went away
    await harness.core.turns().drain()
    assert harness.core.turns().active(req.conv_id) is None
    again = await _request(harness, "hi again", conv_id=req.conv_id)
    events = [ev async for ev in harness.core.run_turn(again)]
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


async def test_another_users_message_leaves_the_conversation_list_row_alone(
    harness: Any,
) -> None:
    harness.use("Hello.", "Hello again.")
    await harness.run("first request")
    await harness.core.turns().drain()
    sql = "SELECT owner, title, updated_at FROM conversation WHERE conv_id = :c"
    before = _committed(harness, sql, c=harness.conv_id)
    events = await harness.run("take this over", user="mallory", conv_id=harness.conv_id)
    await harness.core.turns().drain()
    assert [e["type"] for e in events][-2:] == ["error", "done"]
    assert before and before[0][:2] == ("alice", "first request")
    assert _committed(harness, sql, c=harness.conv_id) == before


async def test_waiting_for_runs_being_closed_ends_while_a_finished_one_is_still_listed() -> None:
    """A finished task leaves the registry's sets by its done callback, a loop iteration
    later. Waiting for the set to empty spun forever on Python 3.12 (a gather of finished
    tasks returns there without yielding, so the callback never ran): the core's shutdown
    hung. Here a finished task stays listed (no callback at all): the waits still end."""
    import asyncio

    from app.agent.core.control import TurnRegistry, wait_all
    from tests.waiting import WAIT_S

    async def nothing() -> None:
        return None

    finished = asyncio.ensure_future(nothing())
    await finished
    registry = TurnRegistry()
    registry._closing.add(finished)
    await asyncio.wait_for(registry.drain(), timeout=WAIT_S)  # a hang's bound
    await asyncio.wait_for(wait_all({finished}), timeout=WAIT_S)
    assert registry._closing == {finished}  # nothing removed it: the wait did not need to
