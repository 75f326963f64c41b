"""The tool catalog: 22 ToolSpecs with their default risk, roles and context affinity.

These are the defaults; a policy file (see :mod:`app.policy.config`) may override
roles, timeouts and confirm rules. ``superset_execute_sql`` is listed as ``write``
(what it may do); :func:`app.policy.risk.tool_risk` classifies each call's SQL.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel

from app.policy.descriptions import TOOL_ENTRIES, ToolEntry

Risk = Literal["read", "write", "delete"]
Confirm = Literal["auto", "always", "never"]

ROLES: tuple[str, ...] = ("admin", "analyst")
ALL_ROLES: frozenset[str] = frozenset(ROLES)
ADMIN: frozenset[str] = frozenset({"admin"})
ALWAYS_INCLUDED = "show_capabilities"
OBJECT_TYPES: tuple[str, ...] = ("dashboard", "dataset", "migration")

# Which tools fit which page context (the contract's _CONTEXT_TOOL_AFFINITY, verbatim).
CONTEXT_TOOL_AFFINITY: dict[str, set[str]] = {
    "dashboard": {
        "search_dashboards",
        "get_health_summary",
        "deploy_dashboard",
        "run_llm_validation",
        "run_llm_documentation",
        "execute_migration",
        "create_branch",
        "commit_changes",
    },
    "dataset": {
        "superset_explore_database",
        "superset_format_sql",
        "superset_audit_permissions",
        "superset_execute_sql",
        "superset_create_dataset",
        "search_dashboards",
        "get_task_status",
        "list_environments",
    },
    "migration": {
        "execute_migration",
        "search_dashboards",
        "get_health_summary",
        "deploy_dashboard",
        "list_environments",
    },
}

# Admin-only tools. The contract lists the first seven; DESIGN.md also makes
# delete_dashboard and restore_backup admin-only, so all nine are here.
TOOL_PERMISSIONS: dict[str, list[str]] = {
    "deploy_dashboard": ["admin"],
    "commit_changes": ["admin"],
    "create_branch": ["admin"],
    "run_backup": ["admin"],
    "execute_migration": ["admin"],
    "start_maintenance": ["admin"],
    "end_maintenance": ["admin"],
    "delete_dashboard": ["admin"],
    "restore_backup": ["admin"],
}


@dataclass(frozen=True)
class ToolSpec:
    """What policy knows about one tool."""

    name: str
    family: str
    description: str
    args_model: type[BaseModel]
    risk: Risk
    read_only: bool
    roles: frozenset[str]
    affinity: frozenset[str] = field(default_factory=frozenset)
    timeout_s: float = 30.0
    confirm: Confirm = "auto"
    example_prompt: str = ""


def _spec(entry: ToolEntry) -> ToolSpec:
    roles = frozenset(TOOL_PERMISSIONS.get(entry.name, ROLES))
    affinity = frozenset(t for t, names in CONTEXT_TOOL_AFFINITY.items() if entry.name in names)
    return ToolSpec(
        name=entry.name,
        family=entry.family,
        description=" ".join(entry.description.split()),
        args_model=entry.args_model,
        risk=entry.risk,
        read_only=entry.risk == "read",
        roles=roles,
        affinity=affinity,
        example_prompt=entry.example_prompt,
    )


TOOL_CATALOG: dict[str, ToolSpec] = {s.name: s for s in map(_spec, TOOL_ENTRIES)}
assert len(TOOL_CATALOG) == 22, "the catalog has 22 tools"
