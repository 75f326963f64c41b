"""The card says why a call is rated as it is (``risk_reason``: "templated SQL", "a virtual
dataset's SQL runs again on every chart render: …"), on the page in the page's language
and in the MCP door's card text; a card without a reason shows no "Why" row."""

from __future__ import annotations

from typing import Any

import pytest

from app.events import ConfirmMetadataV2, ConfirmRequiredEvent
from app.i18n import t
from app.mcp.card import card_message
from app.policy import DEFAULT_POLICY, build_confirmation_contract_v2
from components.confirmation_card import confirmation_card
from tests.fixtures.components import component, feed
from tests.screen.test_model import make

PROBE = "SELECT 1 -- {{ '\\n' }}; DELETE FROM orders"
DATASET = {"database": "Sales", "table_name": "k", "sql": "SELECT pg_terminate_backend(1)"}


def _card(tool: str, args: dict[str, Any], lang: str) -> ConfirmRequiredEvent:
    """The confirm_required event the guard sends for this call (the policy's contract)."""
    contract = build_confirmation_contract_v2(
        tool, {**args, "env_id": "prod"}, "admin", None, policy=DEFAULT_POLICY, lang=lang
    )
    meta = {k: v for k, v in contract.items() if k != "requires_confirmation"}
    return ConfirmRequiredEvent(
        conv_id="c1",
        confirmation_id="conf-1",
        call_id="call-1",
        metadata=ConfirmMetadataV2(**meta),
        countdown_s=contract["countdown_s"],
    )


@pytest.mark.parametrize(
    ("tool", "args", "lang", "shown"),
    [
        ("superset_execute_sql", {"sql": PROBE}, "en", t("sql_templated", "en")),
        ("superset_execute_sql", {"sql": PROBE}, "ru", t("sql_templated", "ru")),
        ("superset_create_dataset", DATASET, "en", "runs again on every chart render"),
        ("superset_create_dataset", DATASET, "ru", "при каждой отрисовке графика"),
    ],
)
async def test_the_page_card_shows_why_in_the_pages_language(
    tool: str, args: dict[str, Any], lang: str, shown: str
) -> None:
    model, _, _ = make(lang=lang)
    feed(model, _card(tool, args, lang))
    async with component(lambda: confirmation_card(model)) as user:
        await user.should_see(t("card_why", lang))
        await user.should_see(marker="confirm-reason")
        [label] = user.find(marker="confirm-reason").elements
        assert shown in label.text  # type: ignore[attr-defined]


async def test_a_card_without_a_reason_shows_no_why_row() -> None:
    model, _, _ = make()
    feed(model, _card("run_backup", {}, "en"))
    async with component(lambda: confirmation_card(model)) as user:
        await user.should_see(marker="confirmation-card")
        await user.should_not_see(t("card_why", "en"))


def test_the_mcp_card_says_why() -> None:
    text = card_message(_card("superset_execute_sql", {"sql": PROBE}, "en"))
    assert text.startswith("DANGEROUS — Confirm superset_execute_sql?")
    assert f"Why: {t('sql_templated', 'en')}" in text
    assert "Why:" not in card_message(_card("run_backup", {}, "en"))
