"""Four-eyes on the core, at approval time: everything is checked again as for a new call
(the requester's current role, a maintenance window, the preflight), and nothing runs if
anything changed; the approval's run takes the approver's slot, never the requester's
pace."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session

from app.agent.core import RequestRefused
from app.agent.core import approvals as queue
from app.events import AwaitingApprovalEvent, ConfirmRequiredEvent
from app.store import maintenance, users
from app.store.models import Maintenance
from tests.agent.scripted import call, final_from_tool
from tests.agent.test_four_eyes import (
    POLICY,
    _door,
    _four_eyes,
    _one,
    _recording,
    _waiting_delete,
)
from tests.support import principal_for


async def _approved_after(
    harness: Any, tmp_path: Path, change: Callable[[Session], object]
) -> tuple[dict[str, Any], list[Any]]:
    """alice's prod delete waits for a second person; ``change`` is made in the database
    meanwhile; then bob approves it. His answer, and what ran."""
    ran: list[Any] = []
    waiting = await _waiting_delete(harness, tmp_path, ran, "Refused.")
    with harness.parts.db.session() as s:
        change(s)
    answer = await queue.decide(harness.core, _door(harness, "bob"), waiting.approval_id, "approve")
    return answer, ran


async def test_a_requester_demoted_since_the_request_runs_nothing(
    harness: Any, tmp_path: Path
) -> None:
    demoted = partial(users.set_role, username="alice", role="analyst")
    answer, ran = await _approved_after(harness, tmp_path, demoted)
    assert answer["outcome"] == "refused" and ran == []
    [denied] = harness.audit_rows(kind="permission_denied")
    assert (denied["user"], denied["role"]) == ("alice", "analyst")


async def test_a_maintenance_window_that_started_since_the_request_stops_it(
    harness: Any, tmp_path: Path
) -> None:
    window = Maintenance(env_id="prod", started_by="ops", reason="upgrade")
    started = partial(maintenance.start, window=window)
    answer, ran = await _approved_after(harness, tmp_path, started)
    assert answer["outcome"] == "refused" and ran == []
    assert harness.audit_rows(kind="maintenance_refused")


async def test_a_changed_preflight_since_the_request_stops_it(harness: Any, tmp_path: Path) -> None:
    _four_eyes(harness, tmp_path)
    ran: list[Any] = []
    found = {"dashboards": [{"id": "42", "action": "create"}]}

    async def preflight(name: str, args: Any, deps: Any) -> dict[str, Any]:
        return dict(found)

    deploy = call("deploy_dashboard", dashboard_id="42", target_env="prod")
    harness.use(deploy, final_from_tool, "Changed.", tools=_recording(ran), preflight=preflight)
    card = _one(await harness.turn("deploy 42 to prod"), ConfirmRequiredEvent)
    waiting = _one(await harness.answer(card.confirmation_id), AwaitingApprovalEvent)
    found["dashboards"] = [{"id": "42", "action": "overwrite"}]  # someone made it meanwhile
    answer = await queue.decide(harness.core, _door(harness, "bob"), waiting.approval_id, "approve")
    assert answer["outcome"] == "refused" and ran == []


async def test_an_approval_takes_the_approvers_slot_never_the_requesters_pace(
    harness: Any, tmp_path: Path
) -> None:
    """The request that arrives is the approver's: it takes one of their running slots
    (429 while all are busy: the request still waits); the requester having used up her
    pace of turns never blocks it."""
    path = tmp_path / "policy.toml"
    path.write_text(POLICY, encoding="utf-8")
    harness.configure(
        policy_file=path, dangerous_countdown_s=0, user_turns_per_minute=1, user_max_running=1
    )
    ran: list[Any] = []
    proposal = call("delete_dashboard", dashboard_id="42", env_id="prod")
    harness.use(proposal, final_from_tool, tools=_recording(ran))
    card = _one(await harness.turn("delete dashboard 42 in prod"), ConfirmRequiredEvent)
    waiting = _one(await harness.answer(card.confirmation_id), AwaitingApprovalEvent)
    with pytest.raises(RequestRefused) as paced:  # alice's pace is used up
        await harness.turn("anything else", conv_id="another")
    assert paced.value.status == 429

    bob = principal_for(harness.parts, "bob")
    row = bob.audit_row(conv_id=harness.conv_id, channel="http")
    busy = await harness.core.limits.hold(bob, row, harness.core.audit)  # bob's one slot
    with pytest.raises(RequestRefused) as full:
        await queue.decide(harness.core, _door(harness, "bob"), waiting.approval_id, "approve")
    assert (full.value.status, full.value.error) == (429, "too_many_running")
    assert ran == []
    await harness.core.limits.free(busy)
    answer = await queue.decide(harness.core, _door(harness, "bob"), waiting.approval_id, "approve")
    assert answer["outcome"] == "completed" and ran == [("delete_dashboard", "alice", "admin")]
