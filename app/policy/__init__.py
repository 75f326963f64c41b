"""Policy: pure functions and tables, no I/O (except reading the optional policy file).

* :mod:`.catalog`: the 22 ToolSpecs, CONTEXT_TOOL_AFFINITY, TOOL_PERMISSIONS, ROLES;
* :mod:`.args`: the tools' argument schemas;
* :mod:`.pipeline`: build_tool_pipeline, enforce_tool_permission, alternatives_for;
* :mod:`.risk`: normalize_env, resolve_target_env, tool_risk,
  build_confirmation_contract_v2;
* :mod:`.sql`: classify_sql / sql_risk (sqlglot), with :mod:`.sql_functions`;
* :mod:`.config`: Policy, load_policy, active_policy (policy.toml).

Imports no sqlmodel, nicegui, langgraph, langchain or httpx.
"""

from app.policy.catalog import (
    ALWAYS_INCLUDED,
    CONTEXT_TOOL_AFFINITY,
    OBJECT_TYPES,
    ROLES,
    TOOL_CATALOG,
    TOOL_PERMISSIONS,
    ToolSpec,
)
from app.policy.config import DEFAULT_POLICY, Policy, active_policy, load_policy
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
    describe_call,
    normalize_env,
    resolve_target_env,
    tool_risk,
)
from app.policy.sql import SqlVerdict, classify_sql, sql_risk, worst

__all__ = [
    "ALWAYS_INCLUDED",
    "CONTEXT_TOOL_AFFINITY",
    "DEFAULT_POLICY",
    "OBJECT_TYPES",
    "RISK_LEVELS",
    "ROLES",
    "TOOL_CATALOG",
    "TOOL_PERMISSIONS",
    "Decision",
    "Exclusion",
    "PipelineResult",
    "Policy",
    "SqlVerdict",
    "ToolSpec",
    "active_policy",
    "alternatives_for",
    "build_confirmation_contract_v2",
    "build_tool_pipeline",
    "card_state",
    "classify_sql",
    "describe_call",
    "enforce_tool_permission",
    "load_policy",
    "normalize_env",
    "resolve_target_env",
    "role_may_run",
    "sql_risk",
    "tool_risk",
    "worst",
]
