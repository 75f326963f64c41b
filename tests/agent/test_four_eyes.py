"""Four-eyes on the core: a confirmed call that policy says a second person must approve
waits (a durable request) instead of running; a second person's approval runs it once,
as the requester, in the requester's conversation; the requester can never approve it,
and an expired, withdrawn or re-roled request runs nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from app.agent.core import Caller, RequestRefused
from app.agent.core import approvals as queue
from app.events import (
    AwaitingApprovalEvent,
    ConfirmRequiredEvent,
    DoneEvent,
    ErrorEvent,
    PermissionDeniedEvent,
    ToolEndEvent,
)
from app.store.approvals import ApprovalRequest
from tests.agent.scripted import call, final_from_tool
from tests.support import principal_for

POLICY = """
[approval]
second_person = ["dangerous@prod", "write@prod"]
"""


def _four_eyes(harness: Any, tmp_path: Path, text: str = POLICY) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(text, encoding="utf-8")
    harness.configure(policy_file=path, dangerous_countdown_s=0)


def _one(events: list[Any], kind: type) -> Any:
    [found] = [e for e in events if isinstance(e, kind)]
    return found


def _recording(ran: list[tuple[str, str, str]]) -> dict[str, Any]:
    """Tools that record (tool, the user they ran as, their role) and answer ok."""

    def make(name: str) -> Any:
        async def tool(args: Any, deps: Any) -> Any:
            ran.append((name, deps.user_id, deps.role))
            return {"tool": name, "ok": True}

        return tool

    return {n: make(n) for n in ("delete_dashboard", "start_maintenance", "deploy_dashboard")}


async def _waiting_delete(
    harness: Any, tmp_path: Path, ran: list[Any], *then: Any
) -> AwaitingApprovalEvent:
    """alice (admin) asks to delete dashboard 42 in prod and confirms its card: it waits."""
    _four_eyes(harness, tmp_path)
    proposal = call("delete_dashboard", dashboard_id="42", env_id="prod")
    harness.use(proposal, final_from_tool, *then, tools=_recording(ran))
    card = _one(await harness.turn("delete dashboard 42 in prod"), ConfirmRequiredEvent)
    assert card.metadata.second_person is True  # the card says so before she confirms
    events = await harness.answer(card.confirmation_id, "confirm")
    waiting = _one(events, AwaitingApprovalEvent)
    done = events[-1]
    assert isinstance(done, DoneEvent) and done.reason == "awaiting_approval"
    assert done.state == "idle"  # nothing is asked of the requester's client
    assert ran == [] and not [e for e in events if isinstance(e, ToolEndEvent)]
    return waiting


def _door(harness: Any, user: str, role: str = "admin", channel: str = "http") -> Caller:
    return Caller(principal=principal_for(harness.parts, user, role), channel=channel)  # type: ignore[arg-type]


async def test_a_prod_delete_waits_and_a_second_admin_runs_it_once_as_the_requester(
    harness: Any, tmp_path: Path
) -> None:
    ran: list[Any] = []
    waiting = await _waiting_delete(harness, tmp_path, ran, "Deleted.")
    assert waiting.requester == "alice" and waiting.env_id == "prod"
    assert waiting.metadata is not None and waiting.metadata.dangerous
    view = await harness.core.conversation(principal_for(harness.parts, "alice"), harness.conv_id)
    assert view.awaiting_approval is not None and view.awaiting_approval.status == "pending"
    assert view.pending is None  # no card asks alice anything

    answer = await queue.decide(harness.core, _door(harness, "bob"), waiting.approval_id, "approve")
    assert answer["outcome"] == "completed" and answer["approval"]["status"] == "approved"
    assert answer["approval"]["decided_by"] == "bob"
    assert ran == [("delete_dashboard", "alice", "admin")]  # once, as the requester
    # it landed in alice's conversation: the call's result and the sentence after it
    view = await harness.core.conversation(principal_for(harness.parts, "alice"), harness.conv_id)
    assert view.awaiting_approval is None
    [row] = [c for c in view.tool_calls if c["tool_name"] == "delete_dashboard"]
    assert row["status"] == "completed"
    assert view.messages[-1]["text"] == 'Result: {"tool": "delete_dashboard", "ok": true}'
    # its whole story in the audit log, by the request's id (the audit page's filter)
    story = [r["kind"] for r in reversed(harness.audit_rows(approval=waiting.approval_id))]
    assert story == ["approval_requested", "approved", "executed"]
    [executed] = harness.audit_rows(kind="executed", conv_id=harness.conv_id)
    assert executed["user"] == "alice"  # the run is the requester's
    [approved] = harness.audit_rows(kind="approved")
    assert approved["user"] == "bob" and approved["channel"] == "http"
    # a second approval of the same request: refused, nothing runs again
    with pytest.raises(RequestRefused) as again:
        await queue.decide(harness.core, _door(harness, "carol"), waiting.approval_id, "approve")
    assert again.value.status == 409 and again.value.error == "already_decided"
    assert len(ran) == 1


@pytest.mark.parametrize(
    ("channel", "role"),
    [
        ("http", "admin"),  # her token over the HTTP API
        ("page", "admin"),  # her page session
        ("mcp", "admin"),  # her MCP session
    ],
)
async def test_the_requester_can_never_approve_her_own_request(
    harness: Any, tmp_path: Path, channel: str, role: str
) -> None:
    ran: list[Any] = []
    waiting = await _waiting_delete(harness, tmp_path, ran)
    with pytest.raises(RequestRefused) as refused:
        await queue.decide(
            harness.core, _door(harness, "alice", role, channel), waiting.approval_id, "approve"
        )
    assert refused.value.status == 403 and refused.value.error == "own_request"
    assert ran == []
    [row] = harness.audit_rows(kind="approval_refused")
    assert row["user"] == "alice" and row["channel"] == channel
    assert row["args"]["approval_id"] == waiting.approval_id
    with harness.parts.db.session() as s:
        assert s.get(ApprovalRequest, waiting.approval_id).status == "pending"  # still waits


async def test_an_analyst_may_not_approve(harness: Any, tmp_path: Path) -> None:
    ran: list[Any] = []
    waiting = await _waiting_delete(harness, tmp_path, ran)
    with pytest.raises(RequestRefused) as refused:
        await queue.decide(harness.core, _door(harness, "ana", "analyst"), waiting.approval_id,
                           "approve")  # fmt: skip
    assert refused.value.status == 403 and refused.value.error == "not_an_approver"
    assert ran == []


async def test_two_approvers_racing_run_it_exactly_once(harness: Any, tmp_path: Path) -> None:
    ran: list[Any] = []
    waiting = await _waiting_delete(harness, tmp_path, ran, "Deleted.")
    results = await asyncio.gather(
        queue.decide(harness.core, _door(harness, "bob"), waiting.approval_id, "approve"),
        queue.decide(harness.core, _door(harness, "carol"), waiting.approval_id, "approve"),
        return_exceptions=True,
    )
    won = [r for r in results if isinstance(r, dict)]
    lost = [r for r in results if isinstance(r, RequestRefused)]
    assert len(won) == 1 and len(lost) == 1, results
    assert lost[0].status == 409
    assert ran == [("delete_dashboard", "alice", "admin")]
    assert len(harness.audit_rows(kind="executed")) == 1


async def test_a_denial_carries_its_reason_to_the_requesters_conversation(
    harness: Any, tmp_path: Path
) -> None:
    ran: list[Any] = []
    waiting = await _waiting_delete(harness, tmp_path, ran, "Not deleted.")
    answer = await queue.decide(
        harness.core, _door(harness, "bob"), waiting.approval_id, "deny", "not during the sale"
    )
    assert answer["approval"]["status"] == "denied" and answer["outcome"] is None
    assert ran == []
    view = await harness.core.conversation(principal_for(harness.parts, "alice"), harness.conv_id)
    [row] = [c for c in view.tool_calls if c["tool_name"] == "delete_dashboard"]
    assert row["status"] == "failed" or row["status"] == "cancelled"
    assert "not during the sale" in row["result"] and "bob" in row["result"]
    [denied] = harness.audit_rows(kind="denied")
    assert denied["user"] == "bob" and denied["reason"] == "not during the sale"


async def test_an_expired_request_runs_nothing(harness: Any, tmp_path: Path) -> None:
    ran: list[Any] = []
    waiting = await _waiting_delete(harness, tmp_path, ran)
    with harness.parts.db.session() as s:  # its 24 hours are over
        row = s.get(ApprovalRequest, waiting.approval_id)
        row.expires_at = row.created_at
        s.add(row)
    with pytest.raises(RequestRefused) as refused:
        await queue.decide(harness.core, _door(harness, "bob"), waiting.approval_id, "approve")
    assert refused.value.status == 410 and refused.value.error == "expired"
    assert ran == []
    [expired] = harness.audit_rows(kind="approval_expired")
    assert expired["args"]["approval_id"] == waiting.approval_id


async def test_a_withdrawn_request_runs_nothing(harness: Any, tmp_path: Path) -> None:
    ran: list[Any] = []
    waiting = await _waiting_delete(harness, tmp_path, ran, "Withdrawn.")
    answer = await queue.withdraw(harness.core, _door(harness, "alice"), waiting.approval_id)
    assert answer["approval"]["status"] == "withdrawn"
    with pytest.raises(RequestRefused) as refused:
        await queue.decide(harness.core, _door(harness, "bob"), waiting.approval_id, "approve")
    assert refused.value.status == 409 and refused.value.error == "already_decided"
    assert ran == []
    assert harness.audit_rows(kind="approval_withdrawn")


async def test_a_new_message_withdraws_the_waiting_request(harness: Any, tmp_path: Path) -> None:
    ran: list[Any] = []
    waiting = await _waiting_delete(harness, tmp_path, ran, "Cancelled.", "Hello.")
    await harness.turn("something else", conv_id=harness.conv_id)
    with harness.parts.db.session() as s:
        assert s.get(ApprovalRequest, waiting.approval_id).status == "withdrawn"
    with pytest.raises(RequestRefused):
        await queue.decide(harness.core, _door(harness, "bob"), waiting.approval_id, "approve")
    assert ran == []


async def test_a_write_on_dev_needs_no_second_person(harness: Any, tmp_path: Path) -> None:
    _four_eyes(harness, tmp_path)
    ran: list[Any] = []
    harness.use(call("start_maintenance", env_id="dev"), final_from_tool, tools=_recording(ran))
    card = _one(await harness.turn("start maintenance on dev"), ConfirmRequiredEvent)
    assert card.metadata.second_person is False
    events = await harness.answer(card.confirmation_id)
    assert not [e for e in events if isinstance(e, AwaitingApprovalEvent)]
    assert ran == [("start_maintenance", "alice", "admin")]


async def test_without_an_approval_section_nothing_waits(harness: Any) -> None:
    ran: list[Any] = []
    harness.configure(dangerous_countdown_s=0)
    proposal = call("delete_dashboard", dashboard_id="42", env_id="prod")
    harness.use(proposal, final_from_tool, tools=_recording(ran))
    card = _one(await harness.turn("delete dashboard 42 in prod"), ConfirmRequiredEvent)
    assert card.metadata.second_person is False
    events = await harness.answer(card.confirmation_id)
    assert not [e for e in events if isinstance(e, AwaitingApprovalEvent | ErrorEvent)]
    assert not [e for e in events if isinstance(e, PermissionDeniedEvent)]
    assert ran == [("delete_dashboard", "alice", "admin")]
