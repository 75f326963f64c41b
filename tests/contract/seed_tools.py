"""The seed's tool names as the contract's tests read them (``docs/contract.md``): the 22
of "The tool catalog", the admin-only ones of ``TOOL_PERMISSIONS``, the dashboard's 9, and
every name of the product's catalog as the contract's callers pass them."""

from __future__ import annotations

from app.policy import CONTEXT_TOOL_AFFINITY, TOOL_CATALOG, TOOL_PERMISSIONS

ALL_TOOLS = list(TOOL_CATALOG)  # the names, as the contract's callers pass them
# docs/contract.md "The tool catalog" (the product may hold more: a new tool is no contract change)
DESIGN_22 = {
    "show_capabilities",
    "list_environments",
    "get_task_status",
    "search_dashboards",
    "get_health_summary",
    "run_llm_validation",
    "run_llm_documentation",
    "superset_explore_database",
    "superset_format_sql",
    "superset_audit_permissions",
    "superset_execute_sql",
    "superset_create_dataset",
    "list_backups",
    "deploy_dashboard",
    "execute_migration",
    "create_branch",
    "commit_changes",
    "run_backup",
    "start_maintenance",
    "end_maintenance",
    "delete_dashboard",
    "restore_backup",
}
ADMIN_ONLY = set(TOOL_PERMISSIONS)
DASHBOARD_9 = CONTEXT_TOOL_AFFINITY["dashboard"] | {"show_capabilities"}
