"""What the LLM and the person read about each tool: family, risk, args, text.

One entry per tool, in catalog order: ``(name, family, risk, args_model,
example_prompt, description)``. The description says what the tool does, when to
use it and what it returns; the example prompt feeds ``permission_denied``
alternatives. :mod:`app.policy.catalog` turns these into ToolSpecs.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from pydantic import BaseModel

from app.policy import args as a


class ToolEntry(NamedTuple):
    name: str
    family: str
    risk: Literal["read", "write", "delete"]
    args_model: type[BaseModel]
    example_prompt: str
    description: str


TOOL_ENTRIES: list[ToolEntry] = [
    ToolEntry(
        "show_capabilities",
        "meta",
        "read",
        a.NoArgs,
        "What can you do for me here?",
        """
        Lists what you (the agent) can do for this user on this page: the tools available
        to their role and context, grouped by purpose. Use when the user asks what you can
        do or is unsure how to start. Returns a short list of capabilities.""",
    ),
    ToolEntry(
        "list_environments",
        "meta",
        "read",
        a.NoArgs,
        "Which Superset environments exist?",
        """
        Lists the configured Superset environments (id, name, tier dev/staging/prod, URL)
        and which one is selected. Use before acting on an environment the user named
        loosely. Returns one entry per environment.""",
    ),
    ToolEntry(
        "get_task_status",
        "tasks",
        "read",
        a.TaskStatusArgs,
        "What is the status of my last migration?",
        """
        Reports the status, progress and result of a long-running task (migration, backup,
        restore) by task id, or lists the most recent tasks. Use when the user asks how a
        task is going. Returns status, step/total and any error.""",
    ),
    ToolEntry(
        "search_dashboards",
        "dashboards",
        "read",
        a.SearchDashboardsArgs,
        "Find dashboards about sales",
        """
        Searches dashboards by title in one environment. Use to find a dashboard's id before
        acting on it, or when the user asks which dashboards exist. Returns a page of
        dashboards (id, title, slug, owners, changed_on) and the total count.""",
    ),
    ToolEntry(
        "get_health_summary",
        "dashboards",
        "read",
        a.DashboardArgs,
        "Check the health of this dashboard",
        """
        Checks one dashboard's health: charts that fail to load, broken datasets, slow
        queries, stale data. Use when the user asks whether a dashboard works. Returns an
        overall status and a list of problems per chart.""",
    ),
    ToolEntry(
        "run_llm_validation",
        "dashboards",
        "read",
        a.DashboardArgs,
        "Validate this dashboard for common problems",
        """
        Reviews one dashboard's definition for design and data problems (missing filters,
        inconsistent metrics, unlabeled charts). Use when the user asks for a review or
        validation. Returns findings with severity and a suggested fix each.""",
    ),
    ToolEntry(
        "run_llm_documentation",
        "dashboards",
        "read",
        a.DashboardArgs,
        "Write documentation for this dashboard",
        """
        Drafts documentation for one dashboard: purpose, charts, datasets, metrics and
        filters. Use when the user asks to document or explain a dashboard. Returns
        Markdown text; it changes nothing.""",
    ),
    ToolEntry(
        "superset_explore_database",
        "sql",
        "read",
        a.ExploreDatabaseArgs,
        "Show me the tables in the sales database",
        """
        Browses a database connection: lists databases, then schemas, tables, and a table's
        columns with types. Use before writing SQL or creating a dataset. Returns the
        requested level of the catalog.""",
    ),
    ToolEntry(
        "superset_format_sql",
        "sql",
        "read",
        a.FormatSqlArgs,
        "Format this SQL query",
        """
        Pretty-prints SQL text without running it. Use when the user asks to tidy or read
        a query. Returns the formatted SQL.""",
    ),
    ToolEntry(
        "superset_execute_sql",
        "sql",
        "write",
        a.ExecuteSqlArgs,
        "Run a query to count orders per day",
        """
        Runs SQL through Superset's SQL Lab and returns columns and up to row_limit rows.
        Prefer SELECT queries; statements that change data need the user's confirmation
        and DROP/DELETE/TRUNCATE are treated as dangerous. Returns the result set.""",
    ),
    ToolEntry(
        "superset_create_dataset",
        "sql",
        "write",
        a.CreateDatasetArgs,
        "Create a dataset from the orders table",
        """
        Creates a Superset dataset from a physical table, or a virtual dataset from SQL.
        Use when the user wants to chart a table that has no dataset yet. Needs the user's
        confirmation. Returns the new dataset's id and URL.""",
    ),
    ToolEntry(
        "superset_audit_permissions",
        "sql",
        "read",
        a.AuditPermissionsArgs,
        "Who has access to which datasets?",
        """
        Audits roles and permissions in one environment: which roles can see or change
        which databases, datasets and dashboards, and risky grants. Use for access
        questions. Returns per-role findings.""",
    ),
    ToolEntry(
        "list_backups",
        "backup",
        "read",
        a.ListBackupsArgs,
        "List the latest backups",
        """
        Lists stored backups (id, environment, dashboards, created_at, size), newest first,
        optionally for one dashboard. Use before restoring or to confirm a backup exists.
        Returns the backups.""",
    ),
    ToolEntry(
        "deploy_dashboard",
        "deploy",
        "write",
        a.DeployDashboardArgs,
        "Deploy this dashboard to staging",
        """
        Copies one dashboard (with its charts and datasets) from a source environment to a
        target environment, replacing the target's copy. Use when the user asks to deploy
        or promote a dashboard. Needs confirmation. Returns the target dashboard's id.""",
    ),
    ToolEntry(
        "execute_migration",
        "deploy",
        "write",
        a.MigrationArgs,
        "Migrate these dashboards from dev to staging",
        """
        Migrates several dashboards between environments as a long-running task, remapping
        database connections where names differ. Use for bulk moves. Needs confirmation.
        Returns a task id; follow it with get_task_status.""",
    ),
    ToolEntry(
        "create_branch",
        "git",
        "write",
        a.CreateBranchArgs,
        "Create a git branch for this dashboard",
        """
        Creates a branch in the dashboards' git repository, optionally named after a
        dashboard. Use before committing changes for review. Needs confirmation. Returns
        the branch name.""",
    ),
    ToolEntry(
        "commit_changes",
        "git",
        "write",
        a.CommitChangesArgs,
        "Commit the current dashboard to git",
        """
        Exports dashboards from an environment and commits them to the git repository with
        a message. Use to version dashboards. Needs confirmation. Returns the commit id and
        the files changed.""",
    ),
    ToolEntry(
        "run_backup",
        "backup",
        "write",
        a.RunBackupArgs,
        "Back up the dashboards in prod",
        """
        Exports dashboards of one environment into a stored backup (all dashboards when
        none are named), as a long-running task. Use before risky changes. Needs
        confirmation. Returns a task id and then the backup id.""",
    ),
    ToolEntry(
        "restore_backup",
        "backup",
        "delete",
        a.RestoreBackupArgs,
        "Restore yesterday's backup",
        """
        Restores a stored backup into an environment, overwriting the dashboards it
        contains. Dangerous: current versions are replaced. Use only when the user asks to
        roll back. Needs confirmation after a countdown. Returns a task id.""",
    ),
    ToolEntry(
        "start_maintenance",
        "maintenance",
        "write",
        a.StartMaintenanceArgs,
        "Put staging into maintenance for an hour",
        """
        Opens a maintenance window on an environment: write tools are refused there until
        it ends. Use before planned work. Needs confirmation. Returns the window's start,
        end and reason.""",
    ),
    ToolEntry(
        "end_maintenance",
        "maintenance",
        "write",
        a.EnvArgs,
        "End maintenance on staging",
        """
        Closes the maintenance window of an environment so changes are allowed again. Use
        when planned work is done. Needs confirmation. Returns the closed window.""",
    ),
    ToolEntry(
        "delete_dashboard",
        "dashboards",
        "delete",
        a.DashboardArgs,
        "Delete this dashboard",
        """
        Deletes one dashboard from an environment (its charts stay). Dangerous and not
        undoable without a backup. Use only when the user explicitly asks to delete.
        Needs confirmation after a countdown. Returns the deleted dashboard's id.""",
    ),
]
