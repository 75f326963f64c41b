"""Backup tools: run_backup, list_backups, restore_backup, delete_dashboard.

A backup is a Superset export zip at ``<data_dir>/backups/<env_id>/<UTC ts>_<id>.zip``
with a ``Backup`` index row. ``dashboard_ids`` of the row holds the numeric ids and the
slugs it contains (so either finds it); an empty list means "every dashboard of the
environment at that time". Restore imports the zip with overwrite, through the same
remap-and-import path as a migration (databases matched by name on the target).
delete_dashboard always takes a backup first, with the same code, and says where it is.
Backup, restore and delete run as tasks with progress.
"""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import uuid4

from app.agent.tools.base import ToolDeps, ToolFn
from app.agent.tools.deploy import list_all, plan_bundle, resolve_dashboards, run_migration
from app.bundle import read_bundle
from app.errors import ToolError
from app.store import backups as backup_store
from app.store.db import session_scope
from app.store.models import Backup
from app.tasks.worker import TaskContext, get_runner


def backup_dir(data_dir: Path, env_id: str) -> Path:
    return Path(data_dir).resolve() / "backups" / env_id


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".zip.part")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _view(row: Backup) -> dict[str, Any]:
    return {
        "backup_id": row.id,
        "env_id": row.env_id,
        "dashboards": row.dashboard_ids or "all",
        "created_at": row.created_at.isoformat(),
        "created_by": row.created_by,
        "size_bytes": row.size_bytes,
        "path": row.path,
        "note": row.note,
        "task_id": row.task_id,
    }


async def take_backup(
    deps: ToolDeps, env_id: str, dashboard_ids: list[str], ctx: TaskContext, *, step: int = 1
) -> dict[str, Any]:
    """Export ``dashboard_ids`` (empty → all) of ``env_id`` into a stored, indexed zip.

    Reports two steps starting at ``step``; returns the backup's row as a dict."""
    client = deps.registry.client(env_id)
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
    await ctx.report(step, f"exporting {len(dashboards)} dashboard(s) from {env_id}")
    data = await client.export_dashboards([d["id"] for d in dashboards])
    bundle = read_bundle(data)  # refuse to store anything that is not a real export
    backup_id = uuid4().hex
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    path = backup_dir(deps.settings.data_dir, env_id) / f"{stamp}_{backup_id}.zip"
    await ctx.report(step + 1, f"writing {len(data)} bytes to {path.name}")
    await asyncio.to_thread(_write_atomically, path, data)
    ids: list[str] = []
    if dashboard_ids:
        for d in dashboards:
            ids += [str(d["id"])] + ([str(d["slug"])] if d.get("slug") else [])
    titles = ", ".join(str(d["title"]) for d in dashboards)
    note = ("all dashboards: " if not dashboard_ids else "") + titles
    n_charts = len(bundle.objects("charts"))

    def index() -> dict[str, Any]:
        with session_scope() as session:
            row = backup_store.add_backup(
                session, env_id=env_id, path=str(path), created_by=deps.user_id,
                dashboard_ids=ids, size_bytes=len(data), note=note[:2000],
                task_id=ctx.task_id, backup_id=backup_id,
            )  # fmt: skip
            return _view(row)

    row = await asyncio.to_thread(index)
    return {**row, "dashboard_count": len(dashboards), "chart_count": n_charts}


async def run_backup(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """Back up dashboards of an environment (all when ``dashboard_ids`` is empty) into a
    stored zip export, as a task. Returns the backup id, its path and the task id."""
    env = deps.env(args.env_id)
    ids = list(args.dashboard_ids or [])

    async def job(ctx: TaskContext) -> dict[str, Any]:
        return await take_backup(deps, env.id, ids, ctx)

    return await get_runner().run(
        "backup", job, task_id=deps.task_id, user=deps.user_id, conv_id=deps.conv_id,
        env_id=env.id, total_steps=2, progress=deps.progress,
    )  # fmt: skip


async def list_backups(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """List stored backups, newest first, of an environment (all environments when none is
    selected), optionally only those holding one dashboard (id or slug)."""
    env_id = args.env_id or deps.env_id

    def read() -> list[dict[str, Any]]:
        with session_scope() as session:
            rows = backup_store.list_backups(
                session, env_id=env_id, dashboard_id=args.dashboard_id, limit=50
            )
            return [_view(r) for r in rows]

    rows = await asyncio.to_thread(read)
    return {"env_id": env_id, "count": len(rows), "backups": rows}


def _load_backup(backup_id: str) -> tuple[dict[str, Any], bytes]:
    with session_scope() as session:
        row = backup_store.get_backup(session, backup_id=backup_id.strip())
        if row is None:
            raise ToolError(f"no backup '{backup_id}'; list_backups shows the stored ones")
        view = _view(row)
    path = Path(view["path"])
    if not path.is_file():
        raise ToolError(f"backup '{backup_id}' is indexed but its file is missing: {path}")
    return view, path.read_bytes()


async def restore_backup(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """Restore a stored backup into its environment (or ``env_id``), overwriting the
    dashboards it contains, as a task. Returns what was restored."""
    view, data = await asyncio.to_thread(_load_backup, args.backup_id)
    target = deps.registry.get(args.env_id or view["env_id"])
    client = deps.registry.client(target.id)

    async def job(ctx: TaskContext) -> dict[str, Any]:
        await ctx.report(1, f"reading backup {view['backup_id']} of {view['env_id']}")
        plan = await plan_bundle(view["env_id"], read_bundle(data), client)
        result = await run_migration(plan, client, ctx)
        return {"task_id": ctx.task_id, "backup_id": view["backup_id"], **result}

    return await get_runner().run(
        "restore", job, task_id=deps.task_id, user=deps.user_id, conv_id=deps.conv_id,
        env_id=target.id, total_steps=4, progress=deps.progress,
    )  # fmt: skip


async def delete_dashboard(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """Delete one dashboard (its charts stay). A backup is taken first; the answer says
    where it is (backup_id, path) so restore_backup can bring the dashboard back."""
    env = deps.env(args.env_id)
    client = deps.registry.client(env.id)

    async def job(ctx: TaskContext) -> dict[str, Any]:
        dash = (await resolve_dashboards(client, [args.dashboard_id]))[0]
        backup = await take_backup(deps, env.id, [str(dash["id"])], ctx, step=1)
        await ctx.report(3, f"deleting dashboard {dash['id']} ({dash['title']})")
        await client.delete_dashboard(dash["id"])
        return {
            "task_id": ctx.task_id,
            "deleted": {"id": dash["id"], "title": dash["title"], "slug": dash["slug"]},
            "env_id": env.id,
            "backup_id": backup["backup_id"],
            "backup_path": backup["path"],
            "message": f"Deleted '{dash['title']}' from {env.id}; backup {backup['backup_id']} "
            f"at {backup['path']} (restore_backup brings it back).",
        }

    return await get_runner().run(
        "delete", job, task_id=deps.task_id, user=deps.user_id, conv_id=deps.conv_id,
        env_id=env.id, total_steps=3, progress=deps.progress,
    )  # fmt: skip


TOOLS: dict[str, ToolFn] = {
    "run_backup": run_backup,
    "list_backups": list_backups,
    "restore_backup": restore_backup,
    "delete_dashboard": delete_dashboard,
}
