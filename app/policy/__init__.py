"""Policy: pure rules over a catalog of tool specs it is handed, no I/O (except reading the
optional policy file). It names no tool: who may run a tool and where are the tool's own
spec (``app/tools/<family>/spec.py``); policy reads them.

* :mod:`.toolspec`: ToolSpec (a tool as data, as policy reads it), CardLine, Phrase;
* :mod:`.tables`: the contract's ``TOOL_PERMISSIONS`` and ``CONTEXT_TOOL_AFFINITY`` as
  views of a catalog (the specs' roles and pages);
* :mod:`.pipeline`: build_tool_pipeline, enforce_tool_permission, alternatives_for;
* :mod:`.risk`: the one environment resolver (resolve_env, tier_of, derive_tier,
  EnvTable), tool_risk, card_state, build_confirmation_contract_v2;
* :mod:`.sql`: classify_sql / sql_risk (sqlglot), with :mod:`.sql_functions` and
  :mod:`.sql_dialects` (the readers of a text, the SQL length cap, the token budget);
* :mod:`.config`: Policy, load_policy, policy_from_dict (policy.toml); the policy when a
  caller names none (``DEFAULT_POLICY``: the product's ``TOOL_CATALOG``,
  :mod:`app.tools.catalog`, no file); the catalog and both tables are loaded on first
  use, so importing this package stays cheap;
* :mod:`.approval`: the ``[approval]`` section (four-eyes): needs_second_person, may_approve;
* :mod:`.undo`: what a card says about undoing a call.

Functions that look a tool up by name take an optional ``policy=`` (keyword; default:
``DEFAULT_POLICY``), so the contract's calls work as it writes them. Imports no sqlmodel,
nicegui, langgraph, langchain or httpx, never ``app.agent``, and of ``app.tools`` only
the pure catalog (for the default policy).
"""

from typing import TYPE_CHECKING, Any

from app.policy.approval import ApprovalPolicy, may_approve, needs_second_person
from app.policy.config import (
    Policy,
    default_policy,
    load_policy,
    policy_from_dict,
    product_catalog,
)
from app.policy.pipeline import (
    Decision,
    Exclusion,
    PipelineResult,
    alternatives_for,
    build_tool_pipeline,
    enforce_tool_permission,
    role_may_run,
)
from app.policy.risk import (
    RISK_LEVELS,
    EnvChoice,
    EnvTable,
    build_confirmation_contract_v2,
    card_state,
    default_env,
    derive_tier,
    normalize_env,
    resolve_env,
    tier,
    tier_of,
    tool_risk,
)
from app.policy.sql import SqlVerdict, classify_sql, sql_risk, worst
from app.policy.tables import ALL_ROLES, affinity_table, permission_table
from app.policy.toolspec import CardLine, Phrase, ToolSpec
from app.vocab import OBJECT_TYPES, ROLES

if TYPE_CHECKING:
    from collections.abc import Mapping

    DEFAULT_POLICY: Policy
    TOOL_CATALOG: Mapping[str, ToolSpec]
    TOOL_PERMISSIONS: dict[str, list[str]]
    CONTEXT_TOOL_AFFINITY: dict[str, set[str]]


def _loaded(name: str) -> Any:
    policy = default_policy()
    if name == "DEFAULT_POLICY":
        return policy
    if name == "TOOL_CATALOG":
        return product_catalog()
    if name == "TOOL_PERMISSIONS":
        return permission_table(policy.catalog)
    return affinity_table(policy.catalog)


def __getattr__(name: str) -> Any:
    """The product's ``TOOL_CATALOG``, ``DEFAULT_POLICY`` and the contract's two tables
    (views of the catalog), on first use; each is then one object."""
    if name in {"DEFAULT_POLICY", "TOOL_CATALOG", "TOOL_PERMISSIONS", "CONTEXT_TOOL_AFFINITY"}:
        value = globals()[name] = _loaded(name)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ALL_ROLES",
    "CONTEXT_TOOL_AFFINITY",
    "DEFAULT_POLICY",
    "OBJECT_TYPES",
    "RISK_LEVELS",
    "ROLES",
    "TOOL_CATALOG",
    "TOOL_PERMISSIONS",
    "ApprovalPolicy",
    "CardLine",
    "Decision",
    "EnvChoice",
    "EnvTable",
    "Exclusion",
    "Phrase",
    "PipelineResult",
    "Policy",
    "SqlVerdict",
    "ToolSpec",
    "affinity_table",
    "alternatives_for",
    "build_confirmation_contract_v2",
    "build_tool_pipeline",
    "card_state",
    "classify_sql",
    "default_env",
    "default_policy",
    "derive_tier",
    "enforce_tool_permission",
    "load_policy",
    "may_approve",
    "needs_second_person",
    "normalize_env",
    "permission_table",
    "policy_from_dict",
    "resolve_env",
    "role_may_run",
    "sql_risk",
    "tier",
    "tier_of",
    "tool_risk",
    "worst",
]
