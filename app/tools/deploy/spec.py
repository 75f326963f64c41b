"""Deploy and migration tools' specs: copy dashboards between Superset environments.
(Implementations: ``run.py`` beside it.)

The call's environment is the target; an omitted source is the selected environment.
Both are admin-only and fit dashboard and migration pages. A migration's description
names the tool that reports its task's status (the meta family's, by what it serves).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from app.policy.toolspec import served_by
from app.tools.args import DASHBOARD_ID, RU_DASHBOARD, DatabaseName, Ru, ToolArgs, arg, optional
from app.tools.declare import ADMINS, Family
from app.tools.meta import spec as meta
from app.vocab import Lang

family = Family("deploy")
#: the tool that follows a migration's task (its description says so)
TASK_STATUS = served_by(meta.family.specs, "task_status")


class DeployDashboardArgs(ToolArgs):
    dashboard_id: str = arg(DASHBOARD_ID, RU_DASHBOARD, min_length=1)
    source_env: str | None = optional(
        "Environment to copy from; omit to use the selected one.",
        Ru("Откуда", "Окружение, из которого копировать; пусто — выбранное."),
    )
    target_env: str = arg(
        "Environment to deploy to (e.g. 'staging', 'prod').",
        Ru("Куда", "Окружение, в которое развернуть (например, staging или prod)."),
    )


class MigrationArgs(ToolArgs):
    dashboard_ids: list[str] = arg(
        "Ids or slugs of the dashboards to migrate.",
        Ru("Дашборды", "Id или slug дашбордов, которые перенести."),
        min_length=1,
    )
    source_env: str | None = optional(
        "Environment to migrate from; omit to use the selected one.",
        Ru("Откуда", "Окружение, из которого переносить; пусто — выбранное."),
    )
    target_env: str = arg(
        "Environment to migrate to.", Ru("Куда", "Окружение, в которое переносить.")
    )
    database_mapping: dict[DatabaseName, DatabaseName] = arg(
        "Source database name → target database name, where they differ.",
        Ru("Базы данных", "Имя базы в источнике → имя базы в цели, где они различаются."),
        default_factory=dict,
    )


def _card_values(args: Mapping[str, Any], lang: Lang) -> dict[str, Any]:
    ids = [str(i) for i in args.get("dashboard_ids") or []]
    source = args.get("source_env")
    word = "из" if lang == "ru" else "from"
    return {"source": f" {word} {source}" if source else "", "n": len(ids), "ids": ", ".join(ids)}


#: Both tools run a migration: a long task, shown as what it created or overwrote; run
#: again, it leaves the target as the first run did.
migration_spec = partial(
    family.spec, risk="write", roles=ADMINS, pages=("dashboard", "migration"), long_task=True,
    presentation="diff", idempotent=True, undo="undoable",
)  # fmt: skip

deploy_dashboard = migration_spec(
    "deploy_dashboard", DeployDashboardArgs, card_values=_card_values,
    description="""Copies one dashboard (with its charts and datasets) from a source
    environment to a target environment, replacing the target's copy; database
    connections are matched by name. Use when the user asks to deploy or promote a
    dashboard. Needs confirmation. Returns what was created or overwritten and the target
    dashboard's id and URL.""",
    en=("deploy a dashboard to another environment", "Deploy this dashboard to staging",
        "Deploy dashboard {dashboard_id}{source} to {env}"),
    ru=("задеплоить дашборд", "Задеплой этот дашборд на staging",
        "Развернуть дашборд {dashboard_id}{source} в {env}"),
)  # fmt: skip

execute_migration = migration_spec(
    "execute_migration", MigrationArgs, card_values=_card_values,
    description=f"""Migrates several dashboards between environments as a long-running task:
    exports them, remaps database connections where names differ (by name or
    `database_mapping`), imports each dashboard and verifies it. Use for bulk moves. Needs
    confirmation. Returns a task id; follow it with {TASK_STATUS}.""",
    en=("migrate dashboards between environments", "Migrate these dashboards from dev to staging",
        "Migrate {n} dashboard(s) ({ids}){source} to {env}"),
    ru=("мигрировать дашборды", "Мигрируй эти дашборды с dev на staging",
        "Перенести дашборды ({n}: {ids}){source} в {env}"),
)  # fmt: skip
