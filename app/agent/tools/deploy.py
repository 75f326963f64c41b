"""Deploy and migration tools: copy dashboards between Superset environments.

Both run the migration service (:mod:`app.superset.migration`) as a task with progress;
before a person is asked to confirm, their preflight shows what the run would create or
overwrite on the target, and a blocking problem (e.g. a source database with no match on
the target) stops the call. The call's environment is the target; an omitted source is
the selected environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from app.agent.tools.base import DASHBOARD_ID, RU_DASHBOARD, Ru, ToolArgs, ToolDeps, arg
from app.agent.tools.declare import Family
from app.agent.tools.names import DatabaseName
from app.policy import CardLine, Phrase
from app.superset.migration import plan_migration, preflight_migration, run_migration
from app.tasks.worker import TaskContext
from app.vocab import Lang

family = Family("deploy")


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


async def _preflight(args: DeployDashboardArgs | MigrationArgs, deps: ToolDeps) -> dict[str, Any]:
    """What the run would create or overwrite on the target, and blocking ``errors``."""
    source = deps.registry.resolve(args.source_env, deps.selected_env)
    target = deps.registry.get(args.target_env)
    if isinstance(args, MigrationArgs):
        ids, mapping = list(args.dashboard_ids), dict(args.database_mapping)
    else:
        ids, mapping = [args.dashboard_id], {}
    return await preflight_migration(
        deps.registry.client(source.id), deps.registry.client(target.id), ids, mapping
    )


async def _migrate(deps: ToolDeps, kind: str, ids: list[str], source_env: str | None,
                   target_env: str, mapping: dict[str, str]) -> dict[str, Any]:  # fmt: skip
    source = deps.registry.resolve(source_env, deps.selected_env)
    target = deps.registry.get(target_env)
    source_client, target_client = deps.registry.client(source.id), deps.registry.client(target.id)

    async def job(ctx: TaskContext) -> dict[str, Any]:
        await ctx.report(1, f"exporting {len(ids)} dashboard(s) from {source.id}")
        plan, _ = await plan_migration(source_client, target_client, ids, mapping)
        return {"task_id": ctx.task_id, **await run_migration(plan, target_client, ctx)}

    return await deps.run_task(kind, job, env_id=target.id, total_steps=len(ids) + 3)


#: Both tools run a migration: a long task, checked before it is confirmed, shown as what
#: it created or overwrote; run again, it leaves the target as the first run did.
migration_tool = partial(
    family.tool,
    risk="write",
    long_task=True,
    preflight=_preflight,
    presentation="diff",
    idempotent=True,
)


def _card(en: str, ru: str) -> CardLine:
    """A migration's card line; ``{source}`` (" from dev"), ``{n}`` and ``{ids}`` are filled."""
    return CardLine(en=en, ru=ru, values=_card_values)


@migration_tool(
    can=Phrase("deploy a dashboard to another environment", "задеплоить дашборд"),
    example=Phrase("Deploy this dashboard to staging", "Задеплой этот дашборд на staging"),
    card=_card(
        "Deploy dashboard {dashboard_id}{source} to {env}",
        "Развернуть дашборд {dashboard_id}{source} в {env}",
    ),
)
async def deploy_dashboard(args: DeployDashboardArgs, deps: ToolDeps) -> dict[str, Any]:
    """Copies one dashboard (with its charts and datasets) from a source environment to a
    target environment, replacing the target's copy; database connections are matched
    by name. Use when the user asks to deploy or promote a dashboard. Needs
    confirmation. Returns what was created or overwritten and the target dashboard's id
    and URL."""
    result = await _migrate(
        deps, "deploy", [args.dashboard_id], args.source_env, args.target_env, {}
    )
    dash = result["dashboards"][0]
    return {
        **result,
        "dashboard_id": dash["target_id"],
        "url": dash["url"],
        "action": dash["action"],
    }


@migration_tool(
    can=Phrase("migrate dashboards between environments", "мигрировать дашборды"),
    example=Phrase(
        "Migrate these dashboards from dev to staging", "Мигрируй эти дашборды с dev на staging"
    ),
    card=_card(
        "Migrate {n} dashboard(s) ({ids}){source} to {env}",
        "Перенести дашборды ({n}: {ids}){source} в {env}",
    ),
)
async def execute_migration(args: MigrationArgs, deps: ToolDeps) -> dict[str, Any]:
    """Migrates several dashboards between environments as a long-running task: exports
    them, remaps database connections where names differ (by name or
    `database_mapping`), imports each dashboard and verifies it. Use for bulk moves.
    Needs confirmation. Returns a task id; follow it with get_task_status."""
    return await _migrate(
        deps, "migration", list(args.dashboard_ids), args.source_env, args.target_env,
        dict(args.database_mapping or {}),
    )  # fmt: skip


TOOLS = family.tools
