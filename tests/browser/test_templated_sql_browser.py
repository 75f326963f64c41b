"""What an analyst sees in Chromium when the SQL they ask to run on prod is templated
(``SELECT … -- {{ '\\n' }}; DELETE FROM sales``, a DELETE once Superset renders it): the
dangerous card says why ("templated SQL"), its Confirm waits for the countdown, and a
Cancel leaves Superset's SQL Lab untouched (the product as ``python main.py``, the offline
planner, the real sandbox)."""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest

from app.i18n import t
from app.sandbox.superset_rest import SupersetSession
from tests.browser.conftest import PASSWORD, SHOTS, product
from tests.chromium import chromium, sign_in
from tests.server_proc import add_user

pytestmark = pytest.mark.browser

COUNTDOWN_S = 30  # long enough that the card is seen waiting, whatever the machine's load


def _queries_holding(sandbox: Any, marker: str) -> list[dict[str, Any]]:
    inst = sandbox.env("prod")
    q = f"(filters:!((col:sql,opr:ct,value:'{marker}')),columns:!(id,status))"
    with SupersetSession(inst.url, inst.username, inst.password) as ss:
        return list(ss.call("GET", "/api/v1/query/", params={"q": q}).get("result") or [])


def test_an_analyst_sees_why_a_templated_query_waits_and_cancels_it(
    tmp_path: Any, superset_sandbox: Any
) -> None:
    marker = f"probe_{uuid.uuid4().hex[:10]}"
    sql = f"SELECT 1 AS {marker} -- {{{{ '\\n' }}}}; DELETE FROM sales"
    countdown = {"SS_TOOLS_DANGEROUS_COUNTDOWN_S": str(COUNTDOWN_S)}
    with product(tmp_path / "data", superset_sandbox, **countdown) as server:
        add_user(server.env, "ana", "analyst", PASSWORD)
        with chromium(viewport={"width": 1280, "height": 900}) as (context, expect):
            page = context.new_page()
            page.goto(server.url + "/agent?envId=prod")
            expect(page.get_by_label("Username")).to_be_visible(timeout=15_000)
            sign_in(page, "ana", PASSWORD)
            expect(page.get_by_text("PRODUCTION", exact=True)).to_be_visible(timeout=15_000)
            page.get_by_label("message").fill(f"run this sql on prod: {sql}")
            page.keyboard.press("Enter")
            expect(page.get_by_text("Dangerous action")).to_be_visible(timeout=20_000)
            card = page.locator('[role="dialog"]')
            expect(card.get_by_text(t("card_why", "en"), exact=True)).to_be_visible()
            expect(card.get_by_text(t("sql_templated", "en"))).to_be_visible()
            expect(card.get_by_text(re.compile(r"Confirm available in \d+ s"))).to_be_visible()
            expect(card.get_by_role("button", name="Confirm")).to_be_disabled()
            page.screenshot(path=str(SHOTS / "templated-sql-card.png"))
            card.get_by_role("button", name="Cancel", exact=True).click()
            expect(page.get_by_text("Dangerous action")).to_be_hidden(timeout=20_000)
    assert _queries_holding(superset_sandbox, marker) == []  # it never reached SQL Lab
