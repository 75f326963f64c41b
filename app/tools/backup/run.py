"""Backup tools: run_backup, list_backups, restore_backup (and ``take_backup``, which
a dashboard's delete runs first).

A backup is a Superset export zip at ``<data_dir>/backups/<env_id>/<UTC ts>_<id>.zip``
with a ``Backup`` index row. ``dashboard_ids`` of the row holds the numeric ids and the
slugs it contains (so either finds it); an empty list means "every dashboard of the
environment at that time". Restore imports the zip with overwrite, through the same
remap-and-import path as a migration (databases matched by name on the target).
A dashboard's delete always takes a backup first, with the same code, and says where it is.
Backup, restore and delete run as tasks with progress. A restore without ``env_id``
acts on the backup's own environment: its implementation's ``resolve_target`` looks the
backup up before policy runs, so the maintenance gate and the card see that environment.
(Their specs and args: ``spec.py``; their views: ``view.py``; where a backup is kept:
``store.py``.)
"""

from __future__ import annotations

import asyncio
from typing import Any

from app.errors import ToolError
from app.store import backups as backup_store
from app.superset.bundle import load_bundle
from app.superset.migration import list_all, plan_bundle, resolve_dashboards, run_migration
from app.tasks.worker import TaskContext
from app.tools import import_undo
from app.tools.backup import spec as specs
from app.tools.backup import view
from app.tools.backup.spec import ListBackupsArgs, RestoreBackupArgs, RunBackupArgs
from app.tools.backup.store import (
    backup_bundle,
    backup_dir,
    backup_env,
    new_path,
    reimport,
    store_export,
)
from app.tools.backup.store import view_of as _view
from app.tools.import_undo import after_import, before_import
from app.tools.kit import Implementations, ToolDeps
from app.views import migration

runs = Implementations(specs.family)
__all__ = ["backup_bundle", "backup_dir", "reimport", "runs", "take_backup"]


async def take_backup(
    deps: ToolDeps, env_id: str, dashboard_ids: list[str], ctx: TaskContext, *, step: int = 1
) -> dict[str, Any]:
    """Export ``dashboard_ids`` (empty → all) of ``env_id`` into a stored, indexed zip.

    Reports two steps starting at ``step``; returns the backup's row as a dict."""
    client = deps.client(env_id)
    if dashboard_ids:
        dashboards = await resolve_dashboards(client, dashboard_ids)
    else:
        rows = await list_all(client, "dashboard", ["id", "slug", "dashboard_title"])
        dashboards = [
            {"id": int(r["id"]), "title": r.get("dashboard_title"), "slug": r.get("slug")}
            for r in rows
        ]
        if not dashboards:
            raise ToolError(f"environment '{env_id}' has no dashboards to back up")
    await ctx.report(step, deps.say("exporting", n=len(dashboards), env=env_id))
    data = await client.export_dashboards([d["id"] for d in dashboards])
    # refuse to store anything that is not a real export (or a bomb), read off the loop
    bundle = await load_bundle(data, deps.settings.bundle_caps())
    at = new_path(deps.settings.data_dir, env_id)
    await ctx.report(step + 1, deps.say("writing", size=len(data), file=at[1].name))
    ids: list[str] = []
    if dashboard_ids:
        for d in dashboards:
            ids += [str(d["id"])] + ([str(d["slug"])] if d.get("slug") else [])
    titles = ", ".join(str(d["title"]) for d in dashboards)
    note = ("all dashboards: " if not dashboard_ids else "") + titles
    n_charts = len(bundle.objects("charts"))
    row = await store_export(
        deps.db, deps.settings.data_dir, env_id, data,
        created_by=deps.user_id, dashboard_ids=ids, note=note, task_id=ctx.task_id, at=at,
    )  # fmt: skip
    return {**row, "dashboard_count": len(dashboards), "chart_count": n_charts}


@runs.implements(specs.run_backup, view=view.run_backup)
async def run_backup(args: RunBackupArgs, deps: ToolDeps) -> dict[str, Any]:
    """:func:`take_backup` as a task of two steps."""
    env = deps.env()
    ids = list(args.dashboard_ids or [])

    async def job(ctx: TaskContext) -> dict[str, Any]:
        return await take_backup(deps, env.id, ids, ctx)

    return await deps.run_task("backup", job, env_id=env.id, total_steps=2)


@runs.implements(specs.list_backups, view=view.list_backups)
async def list_backups(args: ListBackupsArgs, deps: ToolDeps) -> dict[str, Any]:
    """The index rows (50 at most); the registry's default env does not narrow them."""
    env_id = deps.env_id if deps.env_chosen else None  # the call's own env_id first

    def read() -> list[dict[str, Any]]:
        with deps.db.session() as session:
            rows = backup_store.newest_backups(
                session, env_id=env_id, dashboard_id=args.dashboard_id, limit=50
            )
            return [_view(r) for r in rows]

    rows = await asyncio.to_thread(read)
    return {"env_id": env_id, "count": len(rows), "backups": rows}


async def restore_target(args: RestoreBackupArgs, deps: ToolDeps) -> str | None:
    """The environment a restore acts on when ``env_id`` is omitted: the backup's own."""
    if args.env_id:
        return None
    return await asyncio.to_thread(backup_env, deps.db, args.backup_id)


@runs.implements(
    specs.restore_backup,
    resolve_target=restore_target,
    view=migration,
    inverse=import_undo.INVERSE,
)
async def restore_backup(args: RestoreBackupArgs, deps: ToolDeps) -> dict[str, Any]:
    """The backup's zip imported with overwrite through the migration path, as a task;
    what it overwrites is exported first (its undo restores it)."""
    view, bundle = await backup_bundle(deps, args.backup_id)
    target, client = deps.env_client()  # the call's env_id, else the backup's (restore_target)

    async def job(ctx: TaskContext) -> dict[str, Any]:
        await ctx.report(
            1, deps.say("reading_backup", backup=view["backup_id"], env=view["env_id"])
        )
        plan = await plan_bundle(view["env_id"], bundle, client)
        before = await before_import(deps, client, plan, "restore_backup")
        result = await run_migration(plan, client, ctx, lang=deps.lang)
        deps.undo = await after_import(deps, client, plan, before)
        return {"task_id": ctx.task_id, "backup_id": view["backup_id"], **result}

    return await deps.run_task("restore", job, env_id=target.id, total_steps=4)
