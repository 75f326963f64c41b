"""Policy: pure functions and tables, no I/O (except reading the optional policy file).

* :mod:`.catalog`: ToolSpec, CardLine, the contract's CONTEXT_TOOL_AFFINITY and
  TOOL_PERMISSIONS tables;
* :mod:`.tools`: the product's tool specs, one module per family, joined into
  ``TOOL_CATALOG`` (name → ToolSpec) and ``DEFAULT_POLICY`` (``Policy(catalog=
  TOOL_CATALOG)``); both are loaded on first use, so importing this package stays cheap;
* :mod:`.pipeline`: build_tool_pipeline, enforce_tool_permission, alternatives_for;
* :mod:`.risk`: tool_risk, card_state, build_confirmation_contract_v2;
* :mod:`.envs`: the one environment resolver (resolve_env, tier_of, derive_tier, EnvTable);
* :mod:`.sql`: classify_sql / sql_risk (sqlglot), with :mod:`.sql_functions` and
  :mod:`.sql_dialects` (the readers of a text, the SQL length cap, the token budget);
* :mod:`.config`: Policy, load_policy, policy_from_dict (policy.toml);
* :mod:`.approval`: the ``[approval]`` section (four-eyes): needs_second_person, may_approve.

Functions that look a tool up by name take an optional ``policy=`` (keyword; default:
``DEFAULT_POLICY``), so the contract's calls work as it writes them. Imports no sqlmodel,
nicegui, langgraph, langchain or httpx, and never ``app.agent``.
"""

from typing import TYPE_CHECKING, Any

from app.policy.approval import ApprovalPolicy, may_approve, needs_second_person
from app.policy.catalog import (
    ALWAYS_INCLUDED,
    CONTEXT_TOOL_AFFINITY,
    OBJECT_TYPES,
    ROLES,
    TOOL_PERMISSIONS,
    CardLine,
    Phrase,
    ToolSpec,
    affinity_for,
    roles_for,
)
from app.policy.config import Policy, default_policy, load_policy, policy_from_dict
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

if TYPE_CHECKING:
    from app.policy.tools import DEFAULT_POLICY, TOOL_CATALOG

_LAZY = frozenset({"DEFAULT_POLICY", "TOOL_CATALOG"})


def __getattr__(name: str) -> Any:
    """``TOOL_CATALOG`` and ``DEFAULT_POLICY``, from :mod:`app.policy.tools` on first use."""
    if name in _LAZY:
        from app.policy import tools

        return getattr(tools, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ALWAYS_INCLUDED",
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
    "affinity_for",
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
    "policy_from_dict",
    "resolve_env",
    "role_may_run",
    "roles_for",
    "sql_risk",
    "tier",
    "tier_of",
    "tool_risk",
    "worst",
]
