"""The product with a real small LLM answering, on the page in a real Chromium, against
the real Superset sandbox. What the person sees, read from the rendered DOM (never the
model's wording):

* the page says which model answers ("Answered by …qwen2.5-coder-0.5b…");
* a read ends with its result card (the tool card with the dashboards as links into
  the sandbox's Superset);
* on a dashboard's page, a delete the page's context leaves out ends with a button that
  goes on without the page's context (or, if the model called a tool the page offers,
  that tool's card); the button leads to the dangerous confirmation card, cancelled;
* the three asks of a new user ("what can you do?", "find dashboards about sales",
  "delete dashboard N in dev"): each ends with its card, at most one line for what went
  wrong, never the step cap.

Screenshots go to ``tests/screenshots/`` (``31-…`` to ``36-…``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.browser.conftest import PASSWORD, SHOTS
from tests.browser.steps import ask
from tests.chromium import chromium, sign_in
from tests.llm.conftest import TURN_TIMEOUT_S
from tests.llm_fixtures import LLM_TEST_TIMEOUT_S
from tests.sandbox_fixtures import dashboard_exists, sandbox_dashboard
from tests.waiting import WAIT_MS

pytestmark = [
    pytest.mark.llm,
    pytest.mark.browser,
    pytest.mark.superset,
    pytest.mark.timeout(LLM_TEST_TIMEOUT_S),
]

TURN_MS = int(TURN_TIMEOUT_S * 1000)
WAY_ON = re.compile(
    r"^(Ask again without this page's context|Continue without this page's context)$"
)


def test_the_page_with_a_real_model_shows_its_name_a_result_card_and_the_way_forward(
    llm_product: Any, superset_sandbox: Any, prod_dashboard: int
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    dev_url = superset_sandbox.env("dev").url.rstrip("/")
    with chromium(viewport={"width": 1280, "height": 1100}) as (context, expect):
        page = context.new_page()
        page.goto(llm_product.url + "/agent?envId=dev")
        sign_in(page, "ops", PASSWORD)
        expect(page.get_by_text(re.compile(r"^Ready$"))).to_be_visible(timeout=WAIT_MS)

        # 1. a read (asked as the model routes it): its card, the dashboards as links; the
        # model's name on the page
        ask(page, "find dashboards about sales")
        card = page.locator(".tool-card").first
        expect(card).to_be_visible(timeout=TURN_MS)
        expect(page.get_by_text(re.compile(r"^Ready$"))).to_be_visible(timeout=TURN_MS)
        answered = page.get_by_text(re.compile(r"^Answered by .*qwen2\.5-coder-0\.5b"))
        expect(answered).to_be_visible()
        links = page.locator(f'a[href^="{dev_url}/superset/dashboard/"]')
        if "search_dashboards" in card.inner_text():  # the read the request names
            expect(links.first).to_be_visible()
        page.screenshot(path=str(SHOTS / "31-llm-read-card.png"), full_page=True)

        # 2. a dashboard's page: the delete is left out by the page's context
        page.get_by_role("button", name="New conversation").click()
        deep = (
            f"/agent?objectType=dashboard&objectId={prod_dashboard}"
            "&objectName=LLM%20Keep&envId=prod"
        )
        page.goto(llm_product.url + deep)
        expect(page.get_by_text(f"Dashboard · LLM Keep (#{prod_dashboard}) · prod")).to_be_visible(
            timeout=WAIT_MS
        )
        ask(page, f"delete dashboard {prod_dashboard} in prod")
        onwards = page.get_by_role("button", name=WAY_ON)
        a_card = page.locator(".tool-card")
        expect(onwards.or_(a_card).first).to_be_visible(timeout=TURN_MS)
        expect(page.get_by_text(re.compile(r"^Ready$"))).to_be_visible(timeout=TURN_MS)
        expect(page.get_by_text("Dangerous action")).to_be_hidden()  # the context holds
        page.screenshot(path=str(SHOTS / "32-llm-way-forward.png"), full_page=True)
        if onwards.count() == 0:  # the model called a tool the page offers: no way on needed
            return

        # 3. one click goes on without the page's context: the delete reaches its card
        onwards.first.click()
        expect(page.get_by_text("No context selected")).to_be_visible(timeout=WAIT_MS)
        dangerous = page.get_by_text("Dangerous action")
        expect(dangerous.or_(page.get_by_text(re.compile(r"^Ready$"))).first).to_be_visible(
            timeout=TURN_MS
        )
        page.screenshot(path=str(SHOTS / "33-llm-after-the-way-forward.png"), full_page=True)
        if dangerous.count() == 0:  # the model, asked again, did not call the delete: no
            return  # write ran (the card is the only way to one)
        page.get_by_role("button", name="Cancel", exact=True).click()  # one click cancels
        expect(page.get_by_text("Dangerous action")).to_be_hidden(timeout=TURN_MS)
    assert dashboard_exists(superset_sandbox, "prod", prod_dashboard)


#: a line for what went wrong (a refusal's notice or an error), as the chat shows it
MISTAKE_ICON = re.compile(r"^(info|error_outline)$")


@pytest.fixture(scope="module")
def dev_dashboard(superset_sandbox: Any) -> Iterator[int]:
    with sandbox_dashboard(superset_sandbox, "dev", "LLM Delete Me", "llm-delete") as found:
        yield found


def test_three_asks_read_like_an_assistant(
    llm_product: Any, superset_sandbox: Any, dev_dashboard: int
) -> None:
    """ "what can you do?", "find dashboards about sales" and "delete dashboard N in dev"
    (a dashboard made for the test) each end with their card and at most one line for
    what went wrong, never the step cap (``34-…`` to ``36-…``)."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    with chromium(viewport={"width": 1280, "height": 1100}) as (context, expect):
        page = context.new_page()
        page.goto(llm_product.url + "/agent?envId=dev")
        sign_in(page, "ops", PASSWORD)
        ready = page.get_by_text(re.compile(r"^Ready$"))
        expect(ready).to_be_visible(timeout=30_000)
        waiting = page.get_by_text(re.compile(r"^Waiting for your confirmation$"))
        lines = page.locator("i.q-icon", has_text=MISTAKE_ICON)
        asks = [
            ("what can you do?", "34-llm-what-can-you-do.png", "show_capabilities"),
            ("find dashboards about sales", "35-llm-find-dashboards.png", "search_dashboards"),
            (f"delete dashboard {dev_dashboard} in dev", "36-llm-delete-in-dev.png", None),
        ]
        for text, shot, tool in asks:
            before_cards = page.locator(".tool-card").count()
            before_lines = lines.count()
            ask(page, text)
            if tool is not None:  # a read: its card
                card = page.locator(".tool-card", has_text=tool)
                expect(card.first).to_be_visible(timeout=TURN_MS)
            else:  # the delete: its confirmation card, nothing deleted before the answer
                expect(page.get_by_role("button", name="Cancel", exact=True)).to_be_visible(
                    timeout=TURN_MS
                )
            # a read ends Ready; the delete waits on its card, nothing deleted
            settled = ready if tool is not None else waiting
            expect(settled).to_be_visible(timeout=TURN_MS)
            page.screenshot(path=str(SHOTS / shot), full_page=True)
            if tool is not None:  # a read's result card (the delete's card is its dialog)
                assert page.locator(".tool-card").count() > before_cards
            assert lines.count() - before_lines <= 1, text
            expect(page.get_by_text(re.compile(r"stopped after \d+ steps"))).to_have_count(0)
        page.get_by_role("button", name="Cancel", exact=True).click()
    assert dashboard_exists(superset_sandbox, "dev", dev_dashboard)
