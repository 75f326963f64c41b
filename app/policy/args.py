"""Argument schemas of the 22 tools (the contract with the planner and the tools).

Names, types and defaults follow DEVELOPERS.md "Tool argument names". Every field
has a description: the LLM sees it. Numbers are coerced to strings (models often
send dashboard ids as integers); unknown arguments are rejected.

``env_id`` is always optional: None means "the environment selected in the UI".
"""

from __future__ import annotations

import warnings
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

ENV_ID = "Superset environment id (e.g. 'dev', 'prod-eu'); omit to use the selected environment."
DASHBOARD_ID = "Dashboard id (a number such as '42') or its slug."


class ToolArgs(BaseModel):
    """Base of every tool's arguments."""

    model_config = ConfigDict(extra="forbid", coerce_numbers_to_str=True)


def _env() -> Any:
    return Field(default=None, description=ENV_ID, max_length=64)


class NoArgs(ToolArgs):
    """The tool takes no arguments."""


class TaskStatusArgs(ToolArgs):
    task_id: str | None = Field(
        default=None, description="Task id to look up; omit to list the most recent tasks."
    )


class SearchDashboardsArgs(ToolArgs):
    query: str = Field(
        default="", description="Words to match in dashboard titles; empty lists all dashboards."
    )
    env_id: str | None = _env()
    page: int = Field(default=0, ge=0, description="Zero-based page number.")
    page_size: int = Field(default=25, ge=1, le=100, description="Dashboards per page (1-100).")


class DashboardArgs(ToolArgs):
    dashboard_id: str = Field(description=DASHBOARD_ID, min_length=1)
    env_id: str | None = _env()


# "schema" shadows a deprecated BaseModel classmethod; the field still works as
# ``args.schema`` (instance data wins), so the contract's name is kept.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message='Field name "schema"', category=UserWarning)

    class ExploreDatabaseArgs(ToolArgs):
        env_id: str | None = _env()
        database: str | None = Field(
            default=None, description="Database id or name; omit to list the databases."
        )
        schema: str | None = Field(
            default=None, description="Schema to list tables of; needs a database."
        )
        table: str | None = Field(
            default=None, description="Table to describe (columns, types); needs a schema."
        )

    class ExecuteSqlArgs(ToolArgs):
        sql: str = Field(description="The SQL to run in SQL Lab.", min_length=1)
        database: str | None = Field(
            default=None, description="Database id or name; omit for the environment's default."
        )
        schema: str | None = Field(default=None, description="Default schema for the query.")
        env_id: str | None = _env()
        row_limit: int = Field(
            default=100, ge=1, le=10000, description="Maximum rows to return (1-10000)."
        )

    class CreateDatasetArgs(ToolArgs):
        database: str = Field(description="Database id or name that holds the table.")
        table_name: str = Field(description="Table name, or the new dataset's name for SQL.")
        schema: str | None = Field(default=None, description="Schema of the table.")
        sql: str | None = Field(
            default=None, description="SQL for a virtual dataset; omit for a physical table."
        )
        env_id: str | None = _env()


class FormatSqlArgs(ToolArgs):
    sql: str = Field(description="The SQL text to pretty-print.", min_length=1)
    env_id: str | None = _env()


class AuditPermissionsArgs(ToolArgs):
    env_id: str | None = _env()
    role: str | None = Field(
        default=None, description="Superset role to audit; omit to audit every role."
    )


class ListBackupsArgs(ToolArgs):
    env_id: str | None = _env()
    dashboard_id: str | None = Field(
        default=None, description="Only backups of this dashboard (id or slug)."
    )


class DeployDashboardArgs(ToolArgs):
    dashboard_id: str = Field(description=DASHBOARD_ID, min_length=1)
    source_env: str | None = Field(
        default=None, description="Environment to copy from; omit to use the selected one."
    )
    target_env: str = Field(description="Environment to deploy to (e.g. 'staging', 'prod').")


class MigrationArgs(ToolArgs):
    dashboard_ids: list[str] = Field(
        description="Ids or slugs of the dashboards to migrate.", min_length=1
    )
    source_env: str | None = Field(
        default=None, description="Environment to migrate from; omit to use the selected one."
    )
    target_env: str = Field(description="Environment to migrate to.")
    database_mapping: dict[str, str] = Field(
        default_factory=dict,
        description="Source database name → target database name, where they differ.",
    )


class CreateBranchArgs(ToolArgs):
    branch: str = Field(description="Name of the new git branch.", min_length=1)
    dashboard_id: str | None = Field(
        default=None, description="Dashboard the branch is about (id or slug), if any."
    )
    env_id: str | None = _env()


class CommitChangesArgs(ToolArgs):
    message: str = Field(description="Commit message.", min_length=1)
    dashboard_ids: list[str] = Field(
        default_factory=list, description="Dashboards to export and commit; empty commits all."
    )
    branch: str | None = Field(default=None, description="Branch to commit to; omit for current.")
    env_id: str | None = _env()


class RunBackupArgs(ToolArgs):
    env_id: str | None = _env()
    dashboard_ids: list[str] = Field(
        default_factory=list, description="Dashboards to back up; empty backs up all of them."
    )


class RestoreBackupArgs(ToolArgs):
    backup_id: str = Field(description="Id of the backup to restore.", min_length=1)
    env_id: str | None = Field(
        default=None,
        description="Environment to restore into; omit to restore into the backup's own env.",
        max_length=64,
    )


class StartMaintenanceArgs(ToolArgs):
    env_id: str | None = _env()
    reason: str = Field(default="", description="Why: shown to people who hit the window.")
    duration_minutes: int | None = Field(
        default=None, ge=1, le=10080, description="Window length in minutes; omit for open-ended."
    )


class EnvArgs(ToolArgs):
    env_id: str | None = _env()
