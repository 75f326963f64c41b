"""Policy: pure functions and tables, no I/O (except reading the optional policy file).

* :mod:`.catalog`: ToolSpec, CardLine, the contract's CONTEXT_TOOL_AFFINITY and
  TOOL_PERMISSIONS tables (policy owns no catalog: ``app.agent.tools`` assembles
  ``TOOL_CATALOG`` from the tools' declarations, and a :class:`Policy` carries it);
* :mod:`.pipeline`: build_tool_pipeline, enforce_tool_permission, alternatives_for;
* :mod:`.risk`: tool_risk, card_state, build_confirmation_contract_v2;
* :mod:`.envs`: the one environment resolver (resolve_env, tier_of, derive_tier, EnvTable);
* :mod:`.sql`: classify_sql / sql_risk (sqlglot), with :mod:`.sql_functions` and
  :mod:`.sql_dialects` (the readers of a text, the SQL length cap, the token budget);
* :mod:`.config`: Policy, load_policy, policy_from_dict (policy.toml).

Functions that look a tool up by name take ``policy=`` (keyword). Imports no sqlmodel,
nicegui, langgraph, langchain or httpx, and never ``app.agent``.
"""

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
from app.policy.config import Policy, load_policy, policy_from_dict
from app.policy.envs import (
    EnvChoice,
    EnvTable,
    default_env,
    derive_tier,
    resolve_env,
    tier_of,
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
    build_confirmation_contract_v2,
    card_state,
    normalize_env,
    tool_risk,
)
from app.policy.sql import SqlVerdict, classify_sql, sql_risk, worst

__all__ = [
    "ALWAYS_INCLUDED",
    "CONTEXT_TOOL_AFFINITY",
    "OBJECT_TYPES",
    "RISK_LEVELS",
    "ROLES",
    "TOOL_PERMISSIONS",
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
    "derive_tier",
    "enforce_tool_permission",
    "load_policy",
    "normalize_env",
    "policy_from_dict",
    "resolve_env",
    "role_may_run",
    "roles_for",
    "sql_risk",
    "tier_of",
    "tool_risk",
    "worst",
]
