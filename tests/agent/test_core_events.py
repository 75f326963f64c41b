"""The agent core: typed events to the page with no SSE text in between, conversations read
through LangGraph's public state API, every audit row naming its door, and one core per
composition root (tests build their own)."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from app import events as events_module
from app.agent import handler as handler_module
from app.agent.core import (
    ConfirmationRefused,
    RequestRefused,
    prepare_turn,
)
from app.auth import Principal
from app.events import (
    BaseEvent,
    ConfirmRequiredEvent,
    DoneEvent,
    ToolEndEvent,
    TurnStartEvent,
)
from app.parts import Parts, with_core
from app.planner import OfflinePlanner
from app.tools.catalog import TOOL_CATALOG
from tests.agent.harness import types_of
from tests.agent.scripted import call, recording_tools, scripted
from tests.agent.test_core_input import turn_kwargs

# --- the page's path: typed events, no SSE text ---------------------------------------------


def _no_sse(*_: Any, **__: Any) -> Any:
    raise AssertionError("the page's path must not encode or parse SSE text")


async def test_page_path_yields_typed_events_without_any_sse_text(
    harness: Any, monkeypatch: Any
) -> None:
    for module, name in (
        (events_module, "encode_sse"),
        (events_module, "decode_sse"),
        (events_module, "parse_event"),
        (handler_module, "encode_sse"),
    ):  # module objects, not dotted paths: NiceGUI's user plugin re-imports packages
        monkeypatch.setattr(module, name, _no_sse)
    log: list[Any] = []
    harness.use_deploy(log)
    events = await harness.turn("deploy 42 to prod")
    assert all(isinstance(e, BaseEvent) for e in events)
    assert isinstance(events[0], TurnStartEvent)
    conf = next(e for e in events if isinstance(e, ConfirmRequiredEvent))
    assert conf.metadata.env_context == "prod"
    assert isinstance(events[-1], DoneEvent) and events[-1].state == "awaiting_confirmation"
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert {e.conv_id for e in events} == {harness.conv_id}
    after = await harness.answer(conf.confirmation_id, "confirm")
    end = next(e for e in after if isinstance(e, ToolEndEvent))
    assert end.status == "completed" and log[0][0] == "deploy_dashboard"
    assert [e.seq for e in after] == list(range(1, len(after) + 1))


async def test_sse_frames_carry_the_same_events_as_the_page(harness: Any) -> None:
    harness.use("Hello.", "Hello.")
    typed = await harness.turn("hi")
    frames = await harness.run("hi")
    assert [e.type for e in typed] == types_of(frames)
    assert [e.seq for e in typed] == [f["seq"] for f in frames]


# --- the conversation read model ----------------------------------------------------------


async def test_conversation_read_shows_a_pending_confirmation_then_its_outcome(
    harness: Any,
) -> None:
    harness.use_deploy(checkpointer=InMemorySaver())
    events = await harness.turn("deploy 42 to prod", uicontext={"objectType": "dashboard"})
    conf = next(e for e in events if isinstance(e, ConfirmRequiredEvent))
    alice = Principal(user_id="alice", role="admin")
    view = await harness.core.conversation(alice, harness.conv_id)
    assert view.pending is not None
    assert view.pending.confirmation_id == conf.confirmation_id
    assert view.pending.metadata == conf.metadata and view.pending.conv_id == harness.conv_id
    assert view.messages == [{"role": "user", "text": "deploy 42 to prod", "position": 0}]
    assert [(c["tool_name"], c["status"]) for c in view.tool_calls] == [
        ("deploy_dashboard", "pending")
    ]
    assert view.turn["object_type"] == "dashboard"
    await harness.answer(conf.confirmation_id, "confirm")
    view = await harness.core.conversation(alice, harness.conv_id)
    assert view.pending is None
    assert (
        view.tool_calls[0]["status"] == "completed"
        and "deploy_dashboard" in (view.tool_calls[0]["result"])
    )
    assert view.as_dict()["pending_confirmation"] is None


async def test_another_users_conversation_is_refused_403(harness: Any) -> None:
    harness.use("Hello.")
    await harness.turn("hi")
    with pytest.raises(RequestRefused) as caught:
        await harness.core.conversation(Principal("mallory", "admin"), harness.conv_id)
    assert caught.value.status == 403


async def test_a_refused_confirmation_has_one_status_for_both_doors(harness: Any) -> None:
    harness.use_proposal(call("delete_dashboard", dashboard_id="7", env_id="prod"))
    conf = next(e for e in await harness.turn("delete 7") if isinstance(e, ConfirmRequiredEvent))
    with pytest.raises(ConfirmationRefused) as caught:
        await harness.answer(conf.confirmation_id, "confirm")
    assert caught.value.http() == (
        425,
        "confirmation_refused",
        "too_early",
        {"message": caught.value.reason},
    )
    assert caught.value.event().code == "confirmation_too_early"


# --- channel ------------------------------------------------------------------------------


@pytest.mark.parametrize(("channel", "client"), [("page", None), ("mcp", "claude-desktop")])
async def test_every_audit_row_of_a_turn_names_its_door(
    harness: Any, channel: str, client: str | None
) -> None:
    harness.use_deploy()
    door = {"channel": channel, "client": client}
    events = await harness.turn("hi", conv_id=f"door-{channel}", **door)
    conf = next(e for e in events if isinstance(e, ConfirmRequiredEvent))
    await harness.answer(conf.confirmation_id, **door)
    rows = harness.audit_rows(conv_id=f"door-{channel}")
    kinds = {r["kind"] for r in rows}
    assert {"tool_filtered", "confirm_requested", "confirmed", "executed"} <= kinds
    assert {(r["channel"], r["client"]) for r in rows} == {(channel, client)}


# --- composition ----------------------------------------------------------------------------


async def test_offline_planner_reads_the_turn_facts_from_the_prompt_like_any_model(
    parts: Parts,
) -> None:
    log: list[Any] = []
    parts = with_core(
        parts,
        model=OfflinePlanner(catalog=TOOL_CATALOG),
        tools=recording_tools(log),
        checkpointer=InMemorySaver(),
    )
    core = parts.core
    req = await prepare_turn(
        **await turn_kwargs(
            parts,
            conv_id="planner-data",
            message="check the health of this dashboard",
            env_id="staging-eu",
            uicontext={"objectType": "dashboard", "objectId": "42"},
        )
    )
    events = [e async for e in core.run_turn(req)]
    # the page's dashboard and the selected env came in the prompt's facts and context blocks
    assert log == [("get_health_summary", {"dashboard_id": "42", "env_id": "staging-eu"})]
    assert types_of(events)[-1] == "done"


async def test_each_core_keeps_its_own_graph_and_checkpoints(parts: Parts) -> None:
    model, _ = scripted("one", "two")
    with_a = with_core(parts, model=model, checkpointer=InMemorySaver())
    a = with_a.core
    b = with_core(parts, model=model, checkpointer=InMemorySaver()).core
    assert await a.graph() is await a.graph()
    req = await prepare_turn(**await turn_kwargs(with_a, conv_id="own-graph"))
    [e async for e in a.run_turn(req)]
    alice = Principal("alice", "admin")
    assert (await a.conversation(alice, "own-graph")).messages
    assert (await b.conversation(alice, "own-graph")).messages == []
