"""One visit, one context, in a real Chromium against the real product (a
subprocess, the offline planner answering) and the real Superset sandbox:

* two tabs with different deep links: the second tab's link (another dashboard in
  another environment) starts a new conversation; the first tab's dangerous card is not
  under the second tab's pill, it waits in the drawer with its badge;
* a message typed under that pending card is not dropped silently: the page says at the
  composer to confirm or cancel first, and the text stays in the box;
* Cancel takes one click on the dangerous card (during its countdown);
* a Russian dashboard page refusing a tool says so in Russian, with no English sentence.

Screenshots go to ``tests/screenshots/`` (25-*.png)."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import SHOTS, product
from tests.browser.steps import TURN_MS, ask, opened, settled, signed_in
from tests.chromium import chromium
from tests.sandbox_fixtures import sandbox_dashboard
from tests.waiting import WAIT_MS

pytestmark = pytest.mark.browser


@pytest.fixture
def two_dashboards(superset_sandbox):
    """Customer Health on dev (its delete is cancelled) and Sales Overview on prod."""
    with (
        sandbox_dashboard(superset_sandbox, "dev", "Customer Health", "p25") as health,
        sandbox_dashboard(superset_sandbox, "prod", "Sales Overview", "p25") as sales,
    ):
        yield health, sales


@pytest.fixture
def server(tmp_path, superset_sandbox):
    with product(tmp_path, superset_sandbox, SS_TOOLS_DANGEROUS_COUNTDOWN_S="30") as srv:
        yield srv


def test_a_deep_link_in_a_second_tab_never_opens_onto_the_first_tabs_pending_card(
    server, two_dashboards
) -> None:
    health, sales = two_dashboards
    with chromium(viewport={"width": 1280, "height": 1000}) as (context, expect):
        first = signed_in(context, expect, server.url + "/agent?envId=dev")
        ask(first, f"delete dashboard {health} in dev")
        expect(first.get_by_text("Dangerous action")).to_be_visible(timeout=TURN_MS)
        # the card's header names its object and environment
        expect(first.get_by_text(f"Dashboard · #{health} · dev")).to_be_visible()
        first.screenshot(path=str(SHOTS / "25-1-first-tab-card.png"), full_page=True)

        # a message typed under the card: the page says what to do, the text stays
        box = first.get_by_label("message")
        box.fill("and also list the environments")
        box.press("Enter")
        expect(first.get_by_text("Confirm or cancel the action above first.")).to_be_visible()
        expect(box).to_have_value("and also list the environments")
        first.get_by_role("button", name="Send").click()  # Send too says it, not greyed
        expect(first.get_by_text("Confirm or cancel the action above first.")).to_be_visible()
        first.screenshot(path=str(SHOTS / "25-2-message-under-card.png"), full_page=True)

        # the second tab: another dashboard in another environment, in Russian
        deep = (
            f"/agent?objectType=dashboard&objectId={sales}&objectName=Sales%20Overview"
            "&envId=prod&lang=ru"
        )
        second = opened(context, expect, server.url + deep)
        expect(second.get_by_text(f"Дашборд · Sales Overview (#{sales}) · prod")).to_be_visible()
        expect(second.get_by_text("Опасное действие")).to_have_count(0)
        expect(second.get_by_text(f"delete dashboard {health} in dev")).to_have_count(0)
        expect(second.get_by_text(re.compile(r"Подтверждение станет доступно"))).to_have_count(0)
        second.screenshot(path=str(SHOTS / "25-3-second-tab-new-conversation.png"), full_page=True)
        # the old conversation waits in the drawer, with its badge
        second.get_by_role("button", name="Диалоги").first.click()
        expect(second.get_by_text("Ждёт подтверждения")).to_be_visible(timeout=WAIT_MS)
        second.screenshot(path=str(SHOTS / "25-4-drawer-badge.png"), full_page=True)
        second.close()

        # back in the first tab: one click cancels the dangerous card, countdown running
        expect(first.get_by_text(re.compile(r"Confirm available in \d+ s"))).to_be_visible()
        first.get_by_role("button", name="Cancel", exact=True).click()
        expect(first.get_by_text("Dangerous action")).to_be_hidden(timeout=TURN_MS)
        settled(first, expect)
        expect(
            first.get_by_text(f"Cancelled — not deleting dashboard {health} in dev.")
        ).to_be_visible()
        expect(first.get_by_text("Confirm or cancel the action above first.")).to_be_hidden()
        first.screenshot(path=str(SHOTS / "25-5-one-click-cancel.png"), full_page=True)

        # its audit row unfolds into the call's arguments, a name/value table
        first.goto(server.url + "/audit?tool=delete_dashboard")
        unfold = first.locator("[data-audit-unfold]").first
        expect(unfold).to_be_visible(timeout=15_000)
        unfold.click()
        args = first.locator("[data-audit-args]").first
        expect(args.locator("th", has_text="dashboard_id")).to_be_visible()
        expect(args.locator("td", has_text=str(health)).first).to_be_visible()
        first.screenshot(path=str(SHOTS / "25-9-audit-row-unfolded.png"), full_page=True)


def test_a_russian_dashboard_page_refuses_a_tool_with_no_english(server, two_dashboards) -> None:
    _, sales = two_dashboards
    deep = (
        f"/agent?objectType=dashboard&objectId={sales}&objectName=Sales%20Overview"
        "&envId=prod&lang=ru"
    )
    with chromium(viewport={"width": 1280, "height": 1000}) as (context, expect):
        page = signed_in(context, expect, server.url + deep)
        ask(page, "list environments")  # a Latin message on a Russian page
        expect(page.get_by_text("контекст страницы его исключает")).to_be_visible(timeout=TURN_MS)
        settled(page, expect)
        page.screenshot(path=str(SHOTS / "25-6-russian-context-refusal.png"), full_page=True)
        text = page.locator("body").inner_text()
        for english in ("not available", "in this context", "is not offered", "Showing",
                        "I can't", "the page's context"):  # fmt: skip
            assert english not in text, english
        page.reload()  # a reload restores the refusal in the page's words too
        settled(page, expect)
        expect(page.get_by_text("контекст страницы его исключает").first).to_be_visible()
        expect(page.get_by_text("REFUSED")).to_have_count(0)
        expect(page.get_by_text("is not offered")).to_have_count(0)
        page.screenshot(path=str(SHOTS / "25-7-russian-refusal-restored.png"), full_page=True)

        # the audit page: the app's header, folded args, filters kept in the URL
        page.goto(server.url + "/audit?user=ops")
        expect(page.get_by_text("Audit log").first).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_role("link", name="ss-tools agent")).to_be_visible()
        expect(page.get_by_label("User")).to_have_value("ops")
        page.get_by_label("Tool").fill("list_environments")
        page.get_by_role("button", name="Apply").click()
        expect(page).to_have_url(re.compile(r"/audit\?user=ops&tool=list_environments"))
        expect(page.locator("[data-audit-conversation]").first).to_have_attribute(
            "href", re.compile(r"^/agent\?conv=")
        )  # ops's own conversation opens in the chat
        page.screenshot(path=str(SHOTS / "25-8-audit-in-the-shell.png"), full_page=True)
