"""The way forward on a dashboard page, in a real Chromium against the real product (a
subprocess, the offline planner answering) and the real Superset sandbox: "delete this
dashboard" on the dashboard's own page is refused by the page's context, said in the
page's words; the core's typed offer is the button "Continue without this page's context"
with the call it makes beside it; one click clears the pill and makes that call directly,
which reaches the dangerous confirmation card. Screenshots go to ``tests/screenshots/``."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import SHOTS
from tests.browser.steps import TURN_MS, ask, settled, signed_in
from tests.chromium import chromium

pytestmark = pytest.mark.browser


def test_the_way_forward_on_a_dashboard_page_leads_to_the_dangerous_card(
    server, sandbox_dashboards
) -> None:
    # a dashboard on prod whose page the test opens (its delete is cancelled)
    dash = sandbox_dashboards("prod", "Browser Way", "way")
    deep = f"/agent?objectType=dashboard&objectId={dash}&objectName=Browser%20Way&envId=prod"
    with chromium(viewport={"width": 1280, "height": 1000}) as (context, expect):
        page = signed_in(context, expect, server.url + deep)
        expect(page.get_by_text(f"Dashboard · Browser Way (#{dash}) · prod")).to_be_visible()

        ask(page, "delete this dashboard")
        onwards = page.get_by_role("button", name="Continue without this page's context")
        expect(onwards).to_be_visible(timeout=TURN_MS)
        settled(page, expect)
        # the refusal in the page's words, from its typed facts (the server's English
        # sentence is nowhere in the notice; what the answer says is the model's own)
        notice = page.get_by_text("is not available on a dashboard page")
        expect(notice).to_have_text(
            "“delete_dashboard” is not available on a dashboard page: the page's context "
            "leaves it out."
        )
        # the way on names the dashboard as the person knows it (the page's context)
        named = f"Delete dashboard “Browser Way” (#{dash}) in prod"
        beside = page.locator(".q-btn + .font-mono", has_text=named)
        expect(beside).to_be_visible()
        expect(onwards).to_be_enabled()
        page.screenshot(path=str(SHOTS / "21-way-forward-offer.png"), full_page=True)

        onwards.click()
        expect(page.get_by_text("Dangerous action")).to_be_visible(timeout=TURN_MS)
        expect(page.get_by_text("No context selected")).to_be_visible()
        expect(page.get_by_text(f"dashboard_id: {dash}")).to_be_visible()
        expect(page.get_by_text(re.compile(r"Confirm available in \d+ s"))).to_be_visible()
        page.screenshot(path=str(SHOTS / "22-way-forward-dangerous-card.png"), full_page=True)

        page.get_by_role("button", name="Cancel", exact=True).click()  # one click
        settled(page, expect)
        expect(page.get_by_text("Dangerous action")).to_be_hidden()
