"""The tools as a model is offered them (``app.agent.prompt.tool_schema``) are compact,
and a model call is offered only the request's likely few (``app.agent.tool_offer``):
every token is sent with every model call. ``python -m bench.llm_bench`` measures it on
the local model: the no-context turn offered all 22 tools took 2,735 prompt tokens; the
goal for a narrowed turn is at most 1,500. No model runs here: these read the prompt
the product sends (about 4 characters a token in English, fewer in Russian)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import HumanMessage

from app.agent.core.turn_plan import plan_turn
from app.agent.prompt import SYSTEM_PROMPT, prompt_messages, tool_schema
from app.agent.rules import default_policy
from app.agent.tool_offer import narrow
from app.context import UIContext
from app.facts import TurnFacts
from app.planner.rank import ToolRanker
from app.tools.args import ENV_ID
from app.tools.catalog import TOOL_CATALOG
from tests.planner.test_planner_eval import load_eval

#: What the schemas of the 22 tools may weigh, as JSON text (about 4 characters a token;
#: 9,879 characters when this was written, 11,137 before the tightening).
SCHEMAS_MAX_CHARS = 10_200
LIMIT_KEYS = {"minimum", "maximum", "minItems", "maxItems", "minLength", "maxLength", "pattern"}


def _offered() -> list[dict[str, Any]]:
    policy = default_policy()
    names = plan_turn(policy, "admin", None, "dev", None)["allowed_tools"]
    return [tool_schema(policy.catalog[name]) for name in names]


def _keys(schema: Any) -> set[str]:
    if isinstance(schema, dict):
        return set(schema) | {k for v in schema.values() for k in _keys(v)}
    if isinstance(schema, list):
        return {k for v in schema for k in _keys(v)}
    return set()


def test_the_no_context_turn_offers_23_compact_tools() -> None:
    tools = _offered()
    assert len(tools) == 23  # the contract's 22 and undo_change
    assert len(json.dumps([t["function"] for t in tools])) <= SCHEMAS_MAX_CHARS


def test_limits_are_the_args_models_not_the_prompts() -> None:
    for tool in _offered():
        params = tool["function"]["parameters"]
        assert not _keys(params) & LIMIT_KEYS, tool["function"]["name"]
        assert "description" not in params  # the tool's own description says it


def test_env_id_is_explained_once_in_the_system_text_and_kept_where_it_differs() -> None:
    assert "env_id" in SYSTEM_PROMPT
    by_name = {t["function"]["name"]: t["function"]["parameters"]["properties"] for t in _offered()}
    assert by_name["search_dashboards"]["env_id"] == {"type": "string"}
    # restore_backup's env_id means something else (the backup's own env when left out)
    restore = by_name["restore_backup"]["env_id"]
    assert restore.get("description") and restore["description"] != ENV_ID
    # every other argument still says what it is
    for name, props in by_name.items():
        for arg, prop in props.items():
            assert arg == "env_id" or prop.get("description"), (name, arg)


#: A narrowed call's whole prompt as text (system text, tools, facts, message): 1,697
#: characters for "what can you do?" and at most 3,505 on the planner's eval when this
#: was written (the full offer: about 10,900).
NARROWED_MAX_CHARS = 4_000
NO_CONTEXT_MAX_CHARS = 2_000


def _narrowed_chars(text: str, page: dict[str, Any] | None) -> int:
    policy = default_policy()
    allowed = plan_turn(policy, "admin", (page or {}).get("objectType"), "dev", None)
    offer = narrow(ToolRanker(lambda: TOOL_CATALOG), allowed["allowed_tools"], [text], 4)
    assert offer.narrowed, text
    envs = {"dev": "dev", "staging": "staging", "prod": "prod"}
    facts = TurnFacts("dev", envs, None, offer.others)
    messages = prompt_messages([HumanMessage(text)], facts, UIContext(**page) if page else None)
    tools = [tool_schema(policy.catalog[name])["function"] for name in offer.tools]
    return sum(len(str(m.content)) for m in messages) + len(json.dumps(tools, ensure_ascii=False))


def test_the_no_context_turn_is_offered_a_small_prompt() -> None:
    assert _narrowed_chars("what can you do?", None) <= NO_CONTEXT_MAX_CHARS


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_every_narrowed_turn_of_the_planners_eval_stays_small(lang: str) -> None:
    _, cases = load_eval()
    sizes = [
        _narrowed_chars(c["say"], c.get("context"))
        for c in cases
        if (lang == "ru") == any("а" <= ch <= "я" for ch in c["say"].lower())
    ]
    assert sizes and max(sizes) <= NARROWED_MAX_CHARS, max(sizes)
