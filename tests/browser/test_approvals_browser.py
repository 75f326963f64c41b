"""Four-eyes as people see it, in a real Chromium against the real product (a subprocess)
and the real Superset sandbox: admin ``ops`` asks to delete a prod dashboard and confirms
it — the card says a second person must approve, then the page shows "Waiting for a
second approver"; admin ``rev`` opens /approvals (the header's count, the same card with
the PRODUCTION banner) and approves; the result arrives live on ``ops``'s open page.

Screenshots go to ``tests/screenshots/`` (gitignored): 41 the waiting card, 42 the
approvals page, 43 the approver's answer, 44 the result on the requester's page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import PASSWORD, SHOTS, product
from tests.browser.steps import ask, signed_in
from tests.chromium import chromium, sign_in
from tests.sandbox_fixtures import dashboard_exists, sandbox_dashboard
from tests.server_proc import Server, add_user

pytestmark = pytest.mark.browser

WAIT_MS = 60_000


@pytest.fixture
def doomed(superset_sandbox: Any) -> Iterator[int]:
    with sandbox_dashboard(superset_sandbox, "prod", "Browser Four Eyes", "4eyes") as dash_id:
        yield dash_id


@pytest.fixture
def server(tmp_path: Path, superset_sandbox: Any) -> Iterator[Server]:
    policy = tmp_path / "policy.toml"
    policy.write_text('[approval]\nsecond_person = ["dangerous@prod"]\n')
    with product(
        tmp_path,
        superset_sandbox,
        SS_TOOLS_DANGEROUS_COUNTDOWN_S="2",
        SS_TOOLS_POLICY_FILE=str(policy),
        SS_TOOLS_APPROVAL_POLL_S="1",
    ) as srv:
        add_user(srv.env, "rev", "admin", PASSWORD)
        yield srv


def test_the_waiting_card_the_approvals_page_and_the_result_arriving_live(
    server: Server, superset_sandbox: Any, doomed: int
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    with chromium(viewport={"width": 1280, "height": 1000}) as (context, expect):
        asker = signed_in(context, expect, server.url + "/agent?envId=prod")
        ask(asker, f"delete dashboard {doomed} in prod")
        expect(asker.get_by_text("Dangerous action")).to_be_visible(timeout=WAIT_MS)
        second = asker.get_by_text("a second person must approve it", exact=False)
        expect(second).to_be_visible()
        expect(asker.get_by_text("You can confirm now")).to_be_visible(timeout=WAIT_MS)
        asker.get_by_role("button", name="Confirm", exact=True).click()
        waiting = asker.locator("[data-testid=approval-wait-card]")
        expect(waiting).to_be_visible(timeout=WAIT_MS)
        expect(waiting.get_by_text("Waiting for a second approver")).to_be_visible()
        expect(waiting.get_by_text(f"dashboard_id: {doomed}")).to_be_visible()
        expect(waiting.get_by_role("button", name="Withdraw request")).to_be_visible()
        asker.screenshot(path=str(SHOTS / "41-approval-waiting-card.png"), full_page=True)
        assert dashboard_exists(superset_sandbox, "prod", doomed)

        # the approver: the same browser, a context of their own (their own session)
        other = context.browser.new_context(viewport={"width": 1280, "height": 1100})
        try:
            approver = other.new_page()
            approver.goto(server.url + "/approvals")
            sign_in(approver, "rev", PASSWORD)
            count = approver.locator("[data-testid=approvals-count]")
            expect(count).to_have_text("1", timeout=WAIT_MS)
            request = approver.locator("[data-testid=approval-request]")
            expect(request.get_by_text("Requested by ops")).to_be_visible()
            expect(request.get_by_text("PRODUCTION", exact=True)).to_be_visible()
            expect(request.get_by_text(f"dashboard_id: {doomed}")).to_be_visible()
            expect(request.get_by_text("You can confirm now")).to_be_visible(timeout=WAIT_MS)
            approver.screenshot(path=str(SHOTS / "42-approvals-page.png"), full_page=True)
            request.get_by_role("button", name="Approve", exact=True).click()
            answer = request.locator("[data-testid=approval-result]")
            expect(answer).to_have_text(
                "Approved: it ran in the requester's conversation.", timeout=WAIT_MS * 3
            )
            expect(count).to_have_text("0")
            approver.screenshot(path=str(SHOTS / "43-approval-approved.png"), full_page=True)
        finally:
            other.close()

        # the requester's page, still open: the result arrives without a reload
        expect(waiting).to_be_hidden(timeout=WAIT_MS)
        card = asker.locator(".tool-card", has_text="delete_dashboard").last
        expect(card).to_be_visible(timeout=WAIT_MS)
        expect(card.get_by_text(re.compile(r"^(Completed|Done)$"))).to_be_visible(timeout=WAIT_MS)
        asker.screenshot(path=str(SHOTS / "44-approval-result-live.png"), full_page=True)
    assert not dashboard_exists(superset_sandbox, "prod", doomed)
