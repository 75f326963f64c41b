"""The tools as a model is offered them (``app.agent.model_step.tool_schema``) are compact:
every token is sent with every model call (``python -m bench.llm_bench`` measures the
no-context turn with all 22 tools: 2,735 prompt tokens on the local model, the goal is
at most 3,000). No model runs here: these read the schemas the product sends."""

from __future__ import annotations

import json
from typing import Any

from app.agent.core.turn_plan import plan_turn
from app.agent.model_step import SYSTEM_PROMPT, tool_schema
from app.agent.rules import default_policy
from app.tools.args import ENV_ID

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
