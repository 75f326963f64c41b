"""The local small model on the narrowed tool offer, over HTTP against the real Superset
sandbox (``app.agent.tool_offer``: the request's likely tools):

* "what can you do?" is answered by ``show_capabilities`` in one model step: the one
  call of the turn, no repair try before it, no mistake line (a small model may then ask
  for the same call again, or write a reply its server cannot read: the turn ends on the
  result it has, quietly: ``repeated_result``, audited);
* ordinary requests, two of them in Russian, each reach their tool;
* every turn shows at most one line for what went wrong and never hits the step cap
  (``Turn.ended_well``, for every LLM test of this folder).

What is asserted is what the product did (events, audit rows), never the model's words.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.llm.conftest import ask, audit, token
from tests.llm_fixtures import LLM_TEST_TIMEOUT_S

pytestmark = [
    pytest.mark.llm,
    pytest.mark.superset,
    pytest.mark.timeout(LLM_TEST_TIMEOUT_S),
]


def test_what_can_you_do_is_answered_by_show_capabilities_in_one_model_step(
    llm_product: Any,
) -> None:
    admin = token(llm_product, "ops")
    turn = ask(llm_product, admin, "what can you do?", env_id="dev")

    turn.ended_well()
    assert turn.reached() == ["show_capabilities"], turn.events
    assert turn.lines() == []
    (ended,) = [e for e in turn.of("tool_end") if e["tool_name"] == "show_capabilities"]
    assert ended["status"] == "completed" and ended["view"] is not None  # the page's card
    rows = audit(llm_product, admin, turn.conv_id)
    # the call was the turn's first step: nothing ran or was repaired before it (the
    # answer step after the result may still be repaired or end on it, quietly)
    ran = [r for r in rows if r["kind"] == "executed"]
    assert [r["tool"] for r in ran] == ["show_capabilities"], rows
    before = [r for r in rows if r["kind"] == "retried" and r["ts"] < ran[0]["ts"]]
    assert not before, before
    print(f"capabilities turn: said {turn.said()!r}")


@pytest.mark.parametrize(
    ("request_text", "tool"),
    [
        ("find dashboards about sales", "search_dashboards"),
        ("which Superset environments are configured?", "list_environments"),
        ("найди дашборды продаж", "search_dashboards"),
        ("покажи список бэкапов", "list_backups"),
    ],
)
def test_an_ordinary_request_reaches_its_tool(
    llm_product: Any, request_text: str, tool: str
) -> None:
    admin = token(llm_product, "ops")
    turn = ask(llm_product, admin, request_text, env_id="dev")

    turn.ended_well()
    assert tool in turn.reached(), turn.events
    rows = audit(llm_product, admin, turn.conv_id)
    assert any(r["kind"] == "executed" and r["tool"] == tool for r in rows), rows
