"""Four-eyes on the pages: the requester's waiting card and the result arriving live on her
open page; the /approvals page with the same card, the header's count, and the requester's
own request never approvable there."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from nicegui import ui
from nicegui.testing import User

from app.agent.core import Caller
from app.agent.core import approvals as queue
from app.events import AwaitingApprovalEvent, ConfirmRequiredEvent
from tests.agent.scripted import call, final_from_tool
from tests.fixtures.pages import page_model
from tests.support import principal_for


@pytest.fixture
def four_eyes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """policy.toml with [approval] (read when the user fixture runs main.py: ask for this
    fixture before ``user``), and a quick poll of a waiting request."""
    path = tmp_path / "policy.toml"
    path.write_text('[approval]\nsecond_person = ["dangerous@prod"]\n', encoding="utf-8")
    monkeypatch.setenv("SS_TOOLS_POLICY_FILE", str(path))
    monkeypatch.setenv("SS_TOOLS_DANGEROUS_COUNTDOWN_S", "0")
    monkeypatch.setenv("SS_TOOLS_APPROVAL_POLL_S", "0.2")
    return path


def _tools(ran: list[Any]) -> dict[str, Any]:
    async def delete_dashboard(args: Any, deps: Any) -> Any:
        ran.append((args.dashboard_id, deps.user_id))
        return {"deleted": args.dashboard_id}

    return {"delete_dashboard": delete_dashboard}


def _use(harness: Any, four_eyes: Path, ran: list[Any]) -> None:
    harness.configure(policy_file=four_eyes, dangerous_countdown_s=0, approval_poll_s=0.2)
    proposal = call("delete_dashboard", dashboard_id="42", env_id="prod")
    harness.use(proposal, final_from_tool, tools=_tools(ran))


def _bob(harness: Any) -> Caller:
    return Caller(principal=principal_for(harness.parts, "bob"), channel="http")


async def _confirmed_on_the_page(user: User, sign_in: Any) -> Any:
    """alice asks for the prod delete on her page and confirms its card, which says a
    second person must approve it: the waiting card stands for the call. Her page's model."""
    await sign_in("admin", target="/agent?envId=prod", username="alice")
    user.find(marker="chat-input").type("delete dashboard 42 in prod").trigger("keydown.enter")
    await user.should_see(marker="confirm-second-person", retries=100)
    await user.should_see("a second person must approve it", retries=10)
    user.find(kind=ui.button, marker="confirm-button").click()
    await user.should_see("Waiting for a second approver", retries=100)
    return page_model(user)


async def test_the_waiting_card_then_the_result_arrives_live_on_the_requesters_page(
    four_eyes: Path, user: User, sign_in: Any, harness: Any
) -> None:
    ran: list[Any] = []
    _use(harness, four_eyes, ran)
    model = await _confirmed_on_the_page(user, sign_in)
    assert model.awaiting_approval is not None and model.card_state == ""
    await user.should_see(marker="approval-withdraw")
    assert ran == []

    await queue.decide(harness.core, _bob(harness), model.approval_id, "approve")
    await user.should_not_see("Waiting for a second approver", retries=100)  # the poll
    card = next(i for i in model.items if getattr(i, "tool_name", "") == "delete_dashboard")
    assert card.status == "completed"
    assert ran == [("42", "alice")]


async def test_the_requester_withdraws_from_the_card(
    four_eyes: Path, user: User, sign_in: Any, harness: Any
) -> None:
    ran: list[Any] = []
    _use(harness, four_eyes, ran)
    approval_id = (await _confirmed_on_the_page(user, sign_in)).approval_id
    user.find(kind=ui.button, marker="approval-withdraw").click()
    await user.should_not_see("Waiting for a second approver", retries=100)
    assert harness.audit_rows(kind="approval_withdrawn")
    status = await queue.approval_status(harness.core, _bob(harness), approval_id)
    assert status["status"] == "withdrawn" and ran == []


async def _waiting_request(harness: Any) -> str:
    """alice's prod delete, confirmed on the core: its request's id."""
    events = await harness.turn("delete dashboard 42 in prod", user="alice")
    card = next(e for e in events if isinstance(e, ConfirmRequiredEvent))
    answer = await harness.answer(card.confirmation_id, user="alice")
    return next(e for e in answer if isinstance(e, AwaitingApprovalEvent)).approval_id


async def test_the_approvals_page_shows_the_same_card_and_the_count(
    four_eyes: Path, user: User, sign_in: Any, harness: Any
) -> None:
    ran: list[Any] = []
    _use(harness, four_eyes, ran)
    await _waiting_request(harness)
    await sign_in("admin", target="/approvals", username="bob")
    await user.should_see(marker="approvals-link", retries=50)
    count = user.find(marker="approvals-count").elements.pop()
    assert count.text == "1"
    await user.should_see("Requested by alice")
    await user.should_see(marker="prod-banner")  # the same card: PRODUCTION banner, badge
    await user.should_see(marker="env-badge")
    await user.should_see("Dangerous action")
    await user.should_see("dashboard_id: 42")
    user.find(kind=ui.button, content="Approve").click()
    await user.should_see("Approved: it ran in the requester's conversation.", retries=100)
    assert ran == [("42", "alice")]
    assert count.text == "0"


async def test_the_requester_cannot_approve_her_own_request_on_the_page(
    four_eyes: Path, user: User, sign_in: Any, harness: Any
) -> None:
    ran: list[Any] = []
    _use(harness, four_eyes, ran)
    await sign_in("admin", target="/agent", username="alice")
    approval_id = await _waiting_request(harness)
    await user.open("/approvals")
    await user.should_see("Your own request: another person must approve it.", retries=50)
    await user.should_not_see(marker="confirm-button")  # no Approve for her own
    # the page's own decision path, had she found a way to send one, is refused too
    from app.pages.approvals import RequestCard
    from app.screen.approvals_queue import ApprovalsCount

    alice = principal_for(harness.parts, "alice")
    request = await queue.approval_status(
        harness.core, Caller(principal=alice, channel="page"), approval_id
    )
    own = RequestCard(harness.core, alice, request, "en", ApprovalsCount())
    assert user.client is not None
    with user.client.content:
        own.result = ui.label("")
    await own.decide("confirm", None)
    assert own.result.text == "You made this request: another person must approve it."
    [refused] = harness.audit_rows(kind="approval_refused")
    assert refused["user"] == "alice" and refused["channel"] == "page"
    assert ran == []


async def test_the_audit_page_filters_a_requests_whole_story(
    four_eyes: Path, user: User, sign_in: Any, harness: Any
) -> None:
    _use(harness, four_eyes, [])
    approval_id = await _waiting_request(harness)
    await queue.decide(harness.core, _bob(harness), approval_id, "deny", "not this week")
    await sign_in("admin", target=f"/audit?approval={approval_id}", username="ops")
    await user.should_see(marker="audit-table", retries=50)
    table = user.find(marker="audit-table").elements.pop()
    for _ in range(50):
        if table.rows:
            break
        await user.should_see(marker="audit-table")
    story = [(r["kind"], r["user"]) for r in reversed(table.rows)]
    assert story[:2] == [("approval_requested", "alice"), ("denied", "bob")], story
    assert {kind for kind, _ in story} <= {"approval_requested", "denied", "cancelled"}
    assert all(approval_id in r["args"] for r in table.rows)
