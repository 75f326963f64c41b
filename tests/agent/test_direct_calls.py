"""A door's direct tool call (``prepare_call`` + ``AgentCore.run_call``): the same guard,
confirmation and audit as a turn, no model in the loop, and the run ends after the tool —
also when its confirmation is answered later, through any door."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest

from app.agent.core import (
    Caller,
    CallRequest,
    RequestRefused,
    ResumeInput,
    prepare_call,
    prepare_resume,
)
from app.auth import Principal
from app.events import (
    BaseEvent,
    ConfirmRequiredEvent,
    DoneEvent,
    ErrorEvent,
    MessageEvent,
    PermissionDeniedEvent,
    ToolEndEvent,
)
from app.parts import Parts
from app.store.models import Confirmation
from tests.agent.harness import first, types_of
from tests.agent.scripted import call, final_from_tool, recording_tools
from tests.support import audit_rows, principal_for

ALICE = Principal(user_id="alice", role="admin")
ANA = Principal(user_id="ana", role="analyst")


async def direct(
    harness: Any,
    tool: str,
    *,
    who: Principal = ALICE,
    conv_id: str | None = None,
    client: str | None = "claude-code",
    **args: Any,
) -> list[BaseEvent]:
    harness.conv_id = conv_id or f"mcp-{uuid.uuid4().hex}"
    # a principal is honoured only for an active account, under its current token stamp
    who = principal_for(harness.parts, who.user_id, who.role)
    req = await mcp_call(harness.core, who, tool, args, harness.conv_id, client)
    return [ev async for ev in harness.core.run_call(req)]


async def mcp_call(
    core: Any, who: Principal, tool: str, arguments: Any, conv_id: str | None, client: str | None
) -> CallRequest:
    """``prepare_call`` of ``tool`` through the MCP door (no page context)."""
    return await prepare_call(
        core=core,
        caller=Caller(principal=who, channel="mcp", client=client),
        tool_name=tool,
        arguments=arguments,
        conv_id=conv_id,
        uicontext=None,
    )


@pytest.fixture
def log(harness: Any) -> list[Any]:
    """The harness's core with tools that record their runs in this list, and a model that
    never proposes anything (its ``harness.recorder`` sees what it was asked)."""
    runs: list[Any] = []
    harness.use(tools=recording_tools(runs))
    return runs


async def test_a_direct_read_call_runs_without_the_model_and_ends_after_the_tool(
    harness: Any, log: list[Any]
) -> None:
    events = await direct(harness, "search_dashboards", query="sales", env_id="dev")
    assert types_of(events) == ["tool_start", "tool_end", "done"]
    end = events[1]
    assert isinstance(end, ToolEndEvent) and end.status == "completed"
    assert end.data == {"tool": "search_dashboards", "ok": True, "args": log[0][1]}
    assert end.data_truncated is False
    assert isinstance(events[-1], DoneEvent) and events[-1].state == "idle"
    assert harness.recorder.seen == []  # the model was never asked
    rows = harness.audit_rows(conv_id=harness.conv_id)
    assert {r["kind"] for r in rows} == {"tool_filtered", "executed"}
    assert {(r["channel"], r["client"]) for r in rows} == {("mcp", "claude-code")}


async def test_a_guarded_direct_call_waits_and_its_confirmation_ends_after_the_tool(
    harness: Any, log: list[Any]
) -> None:
    events = await direct(harness, "deploy_dashboard", dashboard_id="42", target_env="prod")
    conf = events[0]
    assert isinstance(conf, ConfirmRequiredEvent) and conf.metadata.env_context == "prod"
    assert isinstance(events[-1], DoneEvent) and events[-1].state == "awaiting_confirmation"
    assert log == []
    answer = ResumeInput(
        conv_id=harness.conv_id, confirmation_id=conf.confirmation_id, decision="confirm"
    )
    caller = Caller(principal=principal_for(harness.parts), channel="mcp", client="claude-code")
    req = await prepare_resume(answer, core=harness.core, caller=caller)
    after = [ev async for ev in harness.core.resume(req)]
    assert types_of(after) == ["tool_start", "tool_end", "done"]
    assert log == [("deploy_dashboard", log[0][1])] and harness.recorder.seen == []
    kinds = [r["kind"] for r in harness.audit_rows(conv_id=harness.conv_id)]
    assert {"confirm_requested", "confirmed", "executed"} <= set(kinds)
    assert {r["channel"] for r in harness.audit_rows(conv_id=harness.conv_id)} == {"mcp"}


async def test_a_direct_call_confirmed_through_the_http_resume_runs_once_and_ends(
    harness: Any, log: list[Any]
) -> None:
    events = await direct(harness, "run_backup", env_id="prod")
    conf = events[0]
    assert isinstance(conf, ConfirmRequiredEvent)
    frames = await harness.resume(conf.confirmation_id, "confirm")  # the SSE door
    assert types_of(frames) == ["tool_start", "tool_end", "done"]
    again = await harness.resume(conf.confirmation_id, "confirm")
    assert first(again, "error")["code"] == "confirmation_replayed"
    assert len(log) == 1 and harness.recorder.seen == []
    executed = harness.audit_rows(conv_id=harness.conv_id, kind="executed")
    assert len(executed) == 1 and executed[0]["channel"] == "page"


async def test_a_declined_direct_call_is_cancelled_and_audited(
    harness: Any, log: list[Any]
) -> None:
    conf = (await direct(harness, "run_backup", env_id="prod"))[0]
    assert isinstance(conf, ConfirmRequiredEvent)
    after = await harness.answer(conf.confirmation_id, "deny", reason="not now", channel="mcp")
    end = next(e for e in after if isinstance(e, ToolEndEvent))
    assert end.status == "cancelled" and "not now" in end.result
    assert not any(isinstance(e, MessageEvent) for e in after) and log == []
    rows = harness.audit_rows(conv_id=harness.conv_id, kind="cancelled")
    assert rows and rows[0]["reason"] == "not now" and rows[0]["channel"] == "mcp"


async def test_a_person_message_after_a_direct_call_is_answered_by_the_model(
    harness: Any,
) -> None:
    recorder = harness.use(call("list_environments"), final_from_tool, tools=recording_tools([]))
    await direct(harness, "show_capabilities")
    events = await harness.turn("which environments are there?", conv_id=harness.conv_id)
    assert types_of(events)[-2:] == ["message", "done"]
    assert len(recorder.seen) == 2  # proposed a call, then answered from its result


async def test_an_offered_call_taken_after_its_refusal_is_not_a_repeated_call(
    harness: Any,
) -> None:
    """The page's context refused a call the model proposed (its env spelled out); the
    offer is that very call, made directly in the same conversation: a new run, so the
    guard does not take it for the model repeating itself (it reaches the card)."""
    args = {"dashboard_id": "42", "env_id": "prod"}
    harness.use(call("delete_dashboard", **args), "Not on this page.", tools=recording_tools([]))
    page = {"objectType": "dashboard", "objectId": "42", "envId": "prod"}
    events = await harness.turn("delete this dashboard", uicontext=page)
    (offer,) = next(e for e in events if isinstance(e, MessageEvent)).offers
    assert offer.call is not None and offer.call.args == args
    events = await direct(harness, "delete_dashboard", conv_id=harness.conv_id, **args)
    assert [e for e in events if isinstance(e, ErrorEvent)] == []  # not "repeated_call"
    assert isinstance(events[0], ConfirmRequiredEvent)


async def test_an_analysts_direct_call_of_an_admin_tool_is_denied_with_alternatives(
    harness: Any, log: list[Any]
) -> None:
    events = await direct(harness, "delete_dashboard", who=ANA, dashboard_id="7", env_id="prod")
    denied = events[0]
    assert isinstance(denied, PermissionDeniedEvent) and denied.required_role == "admin"
    assert denied.alternatives
    assert types_of(events)[-1] == "done" and log == [] and harness.recorder.seen == []
    rows = harness.audit_rows(conv_id=harness.conv_id, kind="permission_denied")
    assert rows and rows[0]["client"] == "claude-code"


async def test_a_dangerous_direct_call_accepted_too_early_stays_pending(
    harness: Any, log: list[Any]
) -> None:
    conf = (await direct(harness, "delete_dashboard", dashboard_id="7", env_id="prod"))[0]
    assert isinstance(conf, ConfirmRequiredEvent) and conf.metadata.dangerous
    with pytest.raises(RequestRefused) as early:
        await harness.answer(conf.confirmation_id, "confirm", channel="mcp")
    assert early.value.status == 425 and log == []
    with harness.parts.db.session() as s:  # the server's clock moves on past the countdown
        row = s.get(Confirmation, conf.confirmation_id)
        assert row is not None and row.used_at is None  # not spent by the early answer
        row.sent_at = row.sent_at - timedelta(seconds=conf.countdown_s)
        s.add(row)
    late = await harness.answer(conf.confirmation_id, "confirm", channel="mcp")
    assert types_of(late) == ["tool_start", "tool_end", "done"] and len(log) == 1


async def test_a_direct_call_in_another_users_conversation_is_refused(
    harness: Any, log: list[Any]
) -> None:
    await direct(harness, "show_capabilities")
    events = await direct(harness, "show_capabilities", who=ANA, conv_id=harness.conv_id)
    err = events[0]
    assert isinstance(err, ErrorEvent) and err.code == "forbidden" and len(log) == 1


@pytest.mark.parametrize(
    ("tool", "arguments", "conv_id", "status", "error"),
    [
        # a name that cannot be a tool's never reaches the guard or an audit row's tool
        pytest.param("../etc", {}, None, 422, "invalid_tool_name", id="bad_tool_name"),
        # arguments are one JSON object
        pytest.param("show_capabilities", ["x"], None, 422, "invalid_arguments", id="list_args"),
        # bounded like a message: 64 KiB of arguments at most
        pytest.param(
            "superset_format_sql", {"sql": "x" * 70_000}, None, 413, "arguments_too_large",
            id="huge_args",
        ),
        # the conversation id follows the turn's rules
        pytest.param("show_capabilities", {}, "a b", 422, "invalid_conv_id", id="bad_conv_id"),
    ],
)  # fmt: skip
async def test_prepare_call_refuses_a_malformed_call_with_an_audit_row(
    parts: Parts, tool: str, arguments: Any, conv_id: str | None, status: int, error: str
) -> None:
    ana = principal_for(parts, ANA.user_id, ANA.role)
    with pytest.raises(RequestRefused) as refused:
        await mcp_call(parts.core, ana, tool, arguments, conv_id, "cursor")
    assert (refused.value.status, refused.value.error) == (status, error)
    rows = audit_rows(parts, user="ana", kind="request_invalid", limit=1)
    assert rows[0]["reason"] == refused.value.reason and rows[0]["client"] == "cursor"


async def test_prepare_call_without_a_token_is_401(parts: Parts) -> None:
    with pytest.raises(RequestRefused) as refused:
        await prepare_call(
            core=parts.core,
            caller=Caller(token=None, channel="mcp"),
            tool_name="show_capabilities",
            arguments={},
            conv_id=None,
            uicontext=None,
        )
    assert refused.value.status == 401
