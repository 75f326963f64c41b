"""Deploy and migration tools' specs: copy dashboards between Superset environments.
(Implementations: ``app/agent/tools/deploy.py``.)

The call's environment is the target; an omitted source is the selected environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from app.policy.catalog import CardLine, Phrase
from app.policy.tools.base import DASHBOARD_ID, RU_DASHBOARD, Ru, ToolArgs, arg
from app.policy.tools.declare import SpecFamily
from app.policy.tools.names import DatabaseName
from app.vocab import Lang

family = SpecFamily("deploy")


class DeployDashboardArgs(ToolArgs):
    dashboard_id: str = arg(DASHBOARD_ID, RU_DASHBOARD, min_length=1)
    source_env: str | None = arg(
        "Environment to copy from; omit to use the selected one.",
        Ru("Откуда", "Окружение, из которого копировать; пусто — выбранное."),
        default=None,
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
    source_env: str | None = arg(
        "Environment to migrate from; omit to use the selected one.",
        Ru("Откуда", "Окружение, из которого переносить; пусто — выбранное."),
        default=None,
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


def _card(en: str, ru: str) -> CardLine:
    """A migration's card line; ``{source}`` (" from dev"), ``{n}`` and ``{ids}`` are filled."""
    return CardLine(en=en, ru=ru, values=_card_values)


#: Both tools run a migration: a long task, shown as what it created or overwrote; run
#: again, it leaves the target as the first run did.
migration_spec = partial(
    family.spec, risk="write", long_task=True, presentation="diff", idempotent=True,
    undo="undoable",
)  # fmt: skip

deploy_dashboard = migration_spec(
    "deploy_dashboard",
    args=DeployDashboardArgs,
    description="""Copies one dashboard (with its charts and datasets) from a source
    environment to a target environment, replacing the target's copy; database
    connections are matched by name. Use when the user asks to deploy or promote a
    dashboard. Needs confirmation. Returns what was created or overwritten and the target
    dashboard's id and URL.""",
    can=Phrase("deploy a dashboard to another environment", "задеплоить дашборд"),
    example=Phrase("Deploy this dashboard to staging", "Задеплой этот дашборд на staging"),
    card=_card(
        "Deploy dashboard {dashboard_id}{source} to {env}",
        "Развернуть дашборд {dashboard_id}{source} в {env}",
    ),
)

execute_migration = migration_spec(
    "execute_migration",
    args=MigrationArgs,
    description="""Migrates several dashboards between environments as a long-running task:
    exports them, remaps database connections where names differ (by name or
    `database_mapping`), imports each dashboard and verifies it. Use for bulk moves. Needs
    confirmation. Returns a task id; follow it with get_task_status.""",
    can=Phrase("migrate dashboards between environments", "мигрировать дашборды"),
    example=Phrase(
        "Migrate these dashboards from dev to staging", "Мигрируй эти дашборды с dev на staging"
    ),
    card=_card(
        "Migrate {n} dashboard(s) ({ids}){source} to {env}",
        "Перенести дашборды ({n}: {ids}){source} в {env}",
    ),
)

SPECS = family.specs
