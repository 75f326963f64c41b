"""Deploy and migration tools: copy dashboards between Superset environments.

Both run the migration service (:mod:`app.superset.migration`) as a task with progress;
before a person is asked to confirm, their preflight shows what the run would create or
overwrite on the target, and a blocking problem (e.g. a source database with no match on
the target) stops the call. The call's environment is the target; an omitted source is
the selected environment. What the run overwrites is exported first, so it can be undone
(:mod:`app.tools.import_undo`); both results are shown as the diff of what the run did
(the generic :func:`app.views.migration`). (Their specs and args: ``spec.py``.)
"""

from __future__ import annotations

from typing import Any

from app.superset.migration import plan_migration, preflight_migration, run_migration
from app.tasks.worker import TaskContext
from app.tools import import_undo
from app.tools.deploy import spec as specs
from app.tools.deploy.spec import DeployDashboardArgs, MigrationArgs
from app.tools.import_undo import after_import, before_import
from app.tools.kit import Implementations, ToolDeps
from app.views import migration

runs = Implementations(specs.family)


async def _preflight(args: DeployDashboardArgs | MigrationArgs, deps: ToolDeps) -> dict[str, Any]:
    """What the run would create or overwrite on the target, and blocking ``errors``."""
    source = deps.registry.resolve(args.source_env, deps.selected_env)
    target = deps.registry.get(args.target_env)
    if isinstance(args, MigrationArgs):
        ids, mapping = list(args.dashboard_ids), dict(args.database_mapping)
    else:
        ids, mapping = [args.dashboard_id], {}
    return await preflight_migration(
        deps.client(source.id),
        deps.client(target.id),
        ids,
        mapping,
        deps.settings.bundle_caps(),
    )


async def _migrate(deps: ToolDeps, kind: str, ids: list[str], source_env: str | None,
                   target_env: str, mapping: dict[str, str]) -> dict[str, Any]:  # fmt: skip
    source = deps.registry.resolve(source_env, deps.selected_env)
    target = deps.registry.get(target_env)
    # both ends act as the person who asked (their own account on a person environment)
    source_client, target_client = deps.client(source.id), deps.client(target.id)

    async def job(ctx: TaskContext) -> dict[str, Any]:
        await ctx.report(1, deps.say("exporting", n=len(ids), env=source.id))
        caps = deps.settings.bundle_caps()
        plan, _ = await plan_migration(source_client, target_client, ids, mapping, caps)
        before = await before_import(deps, target_client, plan, f"{kind} from {source.id}")
        done = await run_migration(plan, target_client, ctx, lang=deps.lang)
        deps.undo = await after_import(deps, target_client, plan, before)
        return {"task_id": ctx.task_id, **done}

    return await deps.run_task(kind, job, env_id=target.id, total_steps=len(ids) + 3)


@runs.implements(
    specs.deploy_dashboard, preflight=_preflight, view=migration, inverse=import_undo.INVERSE
)
async def deploy_dashboard(args: DeployDashboardArgs, deps: ToolDeps) -> dict[str, Any]:
    """A migration of one dashboard; the result names the target dashboard."""
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


@runs.implements(
    specs.execute_migration, preflight=_preflight, view=migration, inverse=import_undo.INVERSE
)
async def execute_migration(args: MigrationArgs, deps: ToolDeps) -> dict[str, Any]:
    """The migration service over the given dashboards, with the database mapping."""
    return await _migrate(
        deps, "migration", list(args.dashboard_ids), args.source_env, args.target_env,
        dict(args.database_mapping or {}),
    )  # fmt: skip
