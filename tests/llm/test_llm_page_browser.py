"""The page answered by the local model, in a real Chromium against the real product and
the real Superset sandbox: a search asked in Russian ends with the page Ready, no sentence
of a failed turn, and no result shown twice. The small model often asks again for what it
already has, in other words (a stray argument, the page's environment written out, the
page its result showed); the guard refuses such a repeat, so each card on the page is a
call of its own. Asserts on what the page shows, never on the model's wording. The
screenshot goes to ``tests/screenshots/``. The answer says what the result holds: when the
model ends its turn by asking again, in the offline planner's words, never only "Here is
the result."."""

from __future__ import annotations

import re
from typing import Any

import pytest

from app.i18n import t
from tests.browser.conftest import SHOTS
from tests.browser.steps import ask, signed_in
from tests.chromium import chromium
from tests.llm.conftest import GENERIC_FAILURE, TURN_TIMEOUT_S

pytestmark = pytest.mark.browser
#: a repeat's answer with no words for its result
PLAIN_REPEAT = {t("model_repeated_result", "en"), t("model_repeated_result", "ru")}


def test_a_search_answered_by_the_local_model_shows_each_result_once(llm_product: Any) -> None:
    with chromium(viewport={"width": 1280, "height": 1200}) as (context, expect):
        page = signed_in(context, expect, llm_product.url + "/agent?envId=dev")
        ask(page, "найди дашборды со словом sales")
        # the first model call of a placed request is asked for a call: a card comes
        expect(page.locator(".tool-card").first).to_be_visible(timeout=TURN_TIMEOUT_S * 1000)
        ready = page.get_by_text(re.compile(r"^(Ready|Готов)$"))
        expect(ready).to_be_visible(timeout=TURN_TIMEOUT_S * 1000)
        page.screenshot(path=str(SHOTS / "40-local-model-search.png"), full_page=True)
        cards = [c.inner_text() for c in page.locator(".tool-card").all()]
        assert len(cards) == len(set(cards)), cards  # no call shown twice
        body = page.inner_text("body")
        assert GENERIC_FAILURE not in body
        assert not PLAIN_REPEAT & set(body.splitlines()), body  # the answer holds the result
