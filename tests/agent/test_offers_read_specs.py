"""The core names no tool: an offer calls the tool that serves its need, whatever its
name (``ToolSpec.serves``), from the policy in force (else the product's catalog)."""

from __future__ import annotations

import dataclasses

import pytest

from app.agent.offers import check_status, undo
from app.policy import DEFAULT_POLICY, Policy
from app.tools.catalog import TOOL_CATALOG


def _renamed(need: str, name: str) -> Policy:
    """The product's catalog with the tool that serves ``need`` under another ``name``."""
    catalog = {}
    for old, spec in TOOL_CATALOG.items():
        if spec.serves == need:
            catalog[name] = dataclasses.replace(spec, name=name)
        else:
            catalog[old] = spec
    return Policy(catalog=catalog)


@pytest.mark.parametrize(
    ("policy", "tool"),
    [
        # the product's task status tool
        (DEFAULT_POLICY, next(n for n, s in TOOL_CATALOG.items() if s.serves == "task_status")),
        # a catalog whose task status tool has another name: that one is called
        (_renamed("task_status", "task_report"), "task_report"),
    ],
)
def test_check_status_calls_the_tool_that_serves_task_status(policy: Policy, tool: str) -> None:
    by_id = check_status(policy, "t1", "run_x", None, "en")
    assert by_id.call is not None and by_id.call.tool_name == tool
    assert by_id.call.args == {"task_id": "t1"}
    recent = check_status(policy, None, "run_x", None, "ru")
    assert recent.call is not None and recent.call.tool_name == tool
    assert recent.request.endswith(f"({tool})")  # the prompt names the tool it calls


@pytest.mark.parametrize(
    ("policy", "tool"),
    [
        (DEFAULT_POLICY, next(n for n, s in TOOL_CATALOG.items() if s.serves == "undo")),
        # a catalog whose undo tool has another name: that one is called
        (_renamed("undo", "revert_change"), "revert_change"),
        # a catalog without an undo tool: the product's (the offer must still say how)
        (Policy(catalog={}), next(n for n, s in TOOL_CATALOG.items() if s.serves == "undo")),
    ],
)
def test_the_undo_offer_calls_the_tool_that_serves_undo(policy: Policy, tool: str) -> None:
    offer = undo(policy, "u1", "Deploy dashboard 1 to prod", "2026-01-01", "dashboard", "en")
    assert offer.call is not None and offer.call.tool_name == tool
    assert offer.call.args == {"undo_id": "u1"} and offer.clear_context  # it fits no page
