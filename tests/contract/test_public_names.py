"""The seed's contract, callable as written (``docs/contract.md``, "Public names").

Every name of the public-names table is imported from the module the table lists and
called with the seed's signature exactly as the seed wrote it (``docs/contract.md``): no
``policy=`` or any other keyword the seed does not have (the product's own catalog is the
default). Here: the table's names and signatures; the TEST_EDGEs of those functions are in
test_public_names_policy.py (the tool filter, the guard, the confirmation contract, the
page context) and test_public_names_execution.py (retry, timeout, summarise, the events).
Nothing here builds an app: ``agent_handler`` / ``resume_handler`` are checked for their
positional parameters only.
"""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from app.agent.events import encode_sse, permission_denied_event
from app.agent.execution import execute_with_timeout, retry_read_tool, summarise_response
from app.agent.handler import agent_handler, resume_handler
from app.context import inject_uicontext, validate_uicontext
from app.policy import (
    CONTEXT_TOOL_AFFINITY,
    TOOL_CATALOG,
    build_confirmation_contract_v2,
    build_tool_pipeline,
    enforce_tool_permission,
    normalize_env,
)
from app.screen import AgentChatModel, StreamProcessor
from tests.contract.seed_tools import ADMIN_ONLY, DESIGN_22
from tests.policy.contract import CONTRACT_ADMIN_ONLY

# --- the table: names and signatures ------------------------------------------------------


def positional(fn: Any) -> list[str]:
    kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return [p.name for p in inspect.signature(fn).parameters.values() if p.kind in kinds]


def required(fn: Any) -> list[str]:
    """The parameters a call must give (everything else has a default)."""
    return [
        p.name
        for p in inspect.signature(fn).parameters.values()
        if p.default is inspect.Parameter.empty
        and p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    ]


@pytest.mark.parametrize(
    ("fn", "seed"),
    [
        (build_tool_pipeline, ["tools", "user_role", "object_type"]),
        (enforce_tool_permission, ["tool_name", "user_role"]),
        (build_confirmation_contract_v2, ["tool_name", "tool_args", "user_role", "target_env"]),
        (validate_uicontext, ["payload"]),
        (inject_uicontext, ["runtime_context", "ctx"]),
        (summarise_response, ["text"]),
        (retry_read_tool, ["func"]),
        (execute_with_timeout, ["tool_fn"]),
        (permission_denied_event, ["tool_name", "required_role", "alternatives"]),
        (encode_sse, ["event"]),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_a_public_function_takes_the_seeds_arguments_and_needs_no_more(fn: Any, seed: list[str]):
    assert positional(fn)[: len(seed)] == seed
    assert required(fn) == seed  # policy= and every other keyword is optional


def test_the_seeds_optional_positions_keep_their_defaults():
    assert inspect.signature(summarise_response).parameters["limit"].default == 4000
    params = inspect.signature(execute_with_timeout).parameters
    assert positional(execute_with_timeout)[:3] == ["tool_fn", "is_write", "timeout_s"]
    assert (params["is_write"].default, params["timeout_s"].default) == (False, 30)
    assert positional(normalize_env) == ["env_id"]


def test_the_policy_tables_and_catalog_are_importable_from_app_policy():
    assert len(DESIGN_22) == 22 and DESIGN_22 <= set(TOOL_CATALOG)
    assert all(TOOL_CATALOG[n].name == n for n in TOOL_CATALOG)
    assert {k: len(v) for k, v in CONTEXT_TOOL_AFFINITY.items()} == {
        "dashboard": 8,
        "dataset": 8,
        "migration": 5,
    }
    assert ADMIN_ONLY >= CONTRACT_ADMIN_ONLY  # the contract's seven, at least
    with pytest.raises(TypeError):
        TOOL_CATALOG["x"] = TOOL_CATALOG["show_capabilities"]  # type: ignore[index]


def test_the_handlers_take_designs_positional_arguments():
    assert positional(agent_handler) == [
        "message",
        "history",
        "conv_id",
        "user_id",
        "user_jwt",
        "env_id",
        "uicontext_str",
    ]
    assert inspect.signature(agent_handler).parameters["uicontext_str"].default is None
    assert inspect.isasyncgenfunction(agent_handler)
    assert inspect.isasyncgenfunction(resume_handler)
    assert {"conv_id", "user_jwt", "decision"} <= set(positional(resume_handler))
    assert positional(resume_handler)[:2] == ["conv_id", "user_jwt"]


def test_resume_handler_takes_exactly_designs_positional_arguments():
    assert [p for p in positional(resume_handler) if p != "reason"] == [
        "conv_id",
        "user_jwt",
        "decision",
    ]


def test_the_screen_model_and_processor_are_importable_from_app_screen():
    assert inspect.isclass(AgentChatModel) and inspect.isclass(StreamProcessor)
    for action in (
        "set_ui_context_from_params",
        "update_active_env",
        "start_dangerous_countdown",
        "tick",
        "confirm",
        "deny",
        "send",
    ):
        assert callable(getattr(AgentChatModel, action, None)), action
