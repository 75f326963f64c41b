"""A Cancel with the real small LLM answering, on the page in Chromium: after the person
cancels the dangerous card, the chat shows the product's own "Operation cancelled"
(«Операция отменена» on the Russian page), whatever the model then says.

The card comes from the model's own call (the model speaks after the Cancel): the request
names the delete plainly. The model is greedy (temperature 0) but small; a language in
which it proposes no delete has no card to cancel, so the test asks in both languages and
needs at least one card. Screenshots: ``tests/screenshots/37-llm-cancel-*.png``."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.browser.conftest import PASSWORD, SHOTS
from tests.browser.steps import ask
from tests.chromium import chromium, sign_in
from tests.llm.conftest import TURN_TIMEOUT_S
from tests.llm_fixtures import LLM_TEST_TIMEOUT_S
from tests.sandbox_fixtures import dashboard_exists, sandbox_dashboard

pytestmark = [
    pytest.mark.llm,
    pytest.mark.browser,
    pytest.mark.superset,
    pytest.mark.timeout(2 * LLM_TEST_TIMEOUT_S),
]

TURN_MS = int(TURN_TIMEOUT_S * 1000)
# (language, the request, the card's title, Cancel, the product's line, "Ready")
ASKS = (
    ("en", "delete dashboard {id} in dev", "Dangerous action", "Cancel",
     "Operation cancelled", "Ready"),
    ("ru", "удали дашборд {id} в dev", "Опасное действие", "Отмена",
     "Операция отменена", "Готов"),
)  # fmt: skip


def test_a_cancel_shows_the_products_line_with_a_real_model(
    llm_product: Any, superset_sandbox: Any
) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    cancelled = []
    with (
        sandbox_dashboard(superset_sandbox, "dev", "LLM Cancel", "llm-cancel") as dashboard,
        chromium(viewport={"width": 1280, "height": 1000}) as (context, expect),
    ):
        page = context.new_page()
        page.goto(llm_product.url + "/agent?envId=dev")
        sign_in(page, "ops", PASSWORD)
        for lang, request, title, cancel, line, ready in ASKS:
            page.goto(llm_product.url + f"/agent?envId=dev&lang={lang}")
            page.get_by_role("button", name=re.compile("New conversation|Новый диалог")).click()
            expect(page.get_by_text(re.compile(f"^{ready}$"))).to_be_visible(timeout=30_000)
            ask(page, request.format(id=dashboard))
            card = page.get_by_text(title)
            idle = page.get_by_text(re.compile(f"^{ready}$"))
            expect(card.or_(idle).first).to_be_visible(timeout=TURN_MS)
            if card.count() == 0:
                print(f"[{lang}] the model proposed no delete: no card to cancel")
                continue
            page.get_by_role("button", name=cancel, exact=True).click()
            expect(page.get_by_text(line, exact=True)).to_be_visible(timeout=TURN_MS)
            expect(card).to_be_hidden(timeout=TURN_MS)
            expect(idle).to_be_visible(timeout=TURN_MS)
            expect(page.get_by_text(line, exact=True)).to_have_count(1)  # said once
            page.screenshot(path=str(SHOTS / f"37-llm-cancel-{lang}.png"), full_page=True)
            cancelled.append(lang)
        assert dashboard_exists(superset_sandbox, "dev", dashboard)
    assert cancelled, "the model proposed the delete in neither language: nothing was cancelled"
