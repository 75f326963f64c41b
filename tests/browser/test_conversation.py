"""The conversation as a person sees it, in a real Chromium against the real product (a
subprocess) and the real Superset sandbox: the test reads the RENDERED page.

* "what can you do?" — the answer's list is ``<li>`` items;
* a dashboard search — titles are ``<a href>`` into the sandbox's Superset, new tab;
* a SELECT — its rows are rows of a ``<table>``, numbers grouped (59,849.79);
* a named dashboard's health — the ECharts chart is on the page, the failing chart listed;
* on a dashboard deep link, «удали этот дашборд» — said in Russian, one click onwards
  clears the context and leads to the delete confirmation.

Screenshots go to ``tests/screenshots/`` (gitignored)."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import SHOTS
from tests.browser.steps import TURN_MS, ask, settled, signed_in
from tests.chromium import chromium
from tests.waiting import WAIT_MS

pytestmark = pytest.mark.browser


def test_results_are_presented_and_context_is_a_way_forward(
    server, superset_sandbox, sandbox_dashboards
) -> None:
    # a dashboard on prod that the test asks to delete (and then cancels)
    kept_dashboard = sandbox_dashboards("prod", "Browser Keep", "keep")
    SHOTS.mkdir(parents=True, exist_ok=True)
    dev_url = superset_sandbox.env("dev").url.rstrip("/")
    with chromium(viewport={"width": 1280, "height": 1000}) as (context, expect):
        page = signed_in(context, expect, server.url + "/agent?envId=dev")

        # 1. capabilities: a markdown list, rendered as <li> items
        ask(page, "what can you do?")
        items = page.locator(".chat-markdown li")
        expect(items.nth(4)).to_be_visible(timeout=TURN_MS)
        settled(page, expect)
        assert items.count() >= 5
        page.screenshot(path=str(SHOTS / "11-capabilities-list.png"), full_page=True)

        # 2. dashboards: titles are links into the sandbox's dev Superset, new tab
        ask(page, "find dashboards about sales in dev")
        link = page.locator(f'a[href^="{dev_url}/superset/dashboard/"]').first
        expect(link).to_be_visible(timeout=TURN_MS)
        settled(page, expect)
        assert link.get_attribute("target") == "_blank"
        assert (
            "Sales Overview"
            in page.locator(f'a[href^="{dev_url}/superset/dashboard/"]').all_inner_texts()
        )

        # 2b. a search that finds nothing is not a dead end: a button lists every dashboard
        ask(page, "find dashboards about zebras in dev")
        everything = page.get_by_role("button", name="All dashboards in dev")
        expect(everything).to_be_visible(timeout=TURN_MS)
        settled(page, expect)
        everything.click()
        sent = page.locator("p").filter(has_text=re.compile(r"^list all dashboards in dev$"))
        expect(sent).to_be_visible(timeout=TURN_MS)  # the person's message (the button's request)
        settled(page, expect)
        expect(page.get_by_role("link", name="Ops Broken Demo").last).to_be_visible()

        # a fresh conversation for the picture: a query and a health check
        page.get_by_role("button", name="New conversation").click()
        page.set_viewport_size({"width": 1280, "height": 1500})

        # 3. SQL rows: rows of a <table>, numbers grouped in the page's language
        ask(page, "run select region, sum(amount) as total from sales group by region")
        sql = page.locator(".tool-card", has_text="superset_execute_sql")
        rows = sql.locator("[data-testid=result-table] table tbody tr")
        expect(rows.first).to_be_visible(timeout=TURN_MS)
        settled(page, expect)
        assert rows.count() >= 2
        totals = sql.locator("table tbody td").all_inner_texts()
        assert any(re.fullmatch(r"\d{1,3}(,\d{3})+(\.\d{1,2})?", t) for t in totals), totals
        sql.screenshot(path=str(SHOTS / "12-sql-table.png"))

        # 4. health of a dashboard named by its title: the chart, the failing chart
        ask(page, "check the health of dashboard Ops Broken Demo in dev")
        chart = page.locator("[data-testid=health-chart]").last
        expect(chart).to_be_visible(timeout=TURN_MS)
        settled(page, expect)
        expect(chart.locator("canvas")).to_have_count(1)
        expect(page.get_by_text("Refund Total (broken)").last).to_be_visible()
        # the README's picture (docs/images/conversation.png is a copy)
        page.screenshot(path=str(SHOTS / "13-conversation.png"))

        # 5. a dashboard page in Russian: the context is a way forward, not a dead end
        page.get_by_role("button", name="New conversation").click()
        deep = (
            f"/agent?objectType=dashboard&objectId={kept_dashboard}"
            "&objectName=Browser%20Keep&envId=prod&lang=ru"
        )
        page.goto(server.url + deep)
        expect(page.get_by_text("Дашборд · Browser Keep", exact=False)).to_be_visible(
            timeout=WAIT_MS
        )
        ask(page, "удали этот дашборд")
        onwards = page.get_by_role("button", name="Продолжить без контекста страницы")
        expect(onwards).to_be_visible(timeout=TURN_MS)
        settled(page, expect)
        expect(page.get_by_text("недоступен на странице дашборда")).to_be_visible()
        expect(page.get_by_text("tool not available", exact=False)).to_be_hidden()
        page.screenshot(path=str(SHOTS / "14-context-way-forward.png"), full_page=True)
        onwards.click()
        expect(page.get_by_text("Опасное действие")).to_be_visible(timeout=TURN_MS)
        expect(page.get_by_text("Контекст не выбран")).to_be_visible()
        expect(page.get_by_text(f"dashboard_id: {kept_dashboard}")).to_be_visible()
        page.screenshot(path=str(SHOTS / "15-delete-confirmation.png"), full_page=True)
        page.get_by_role("button", name="Отмена", exact=True).click()  # one click cancels
        settled(page, expect)
        expect(page.get_by_text("Опасное действие")).to_be_hidden(timeout=TURN_MS)
