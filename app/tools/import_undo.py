"""The undo of an import onto a Superset environment: a deploy, a migration and a restore
write through the migration path (:mod:`app.superset.migration`), and undo the same way
(each declares :data:`INVERSE` as its inverse).

Before the import (:func:`before_import`) the dashboards it will overwrite are exported
from the target and kept as a backup (``note``: "before <tool>"; the listing of backups
shows it), and so are the charts it will overwrite that those dashboards do not hold (a chart
export kept beside it). Datasets that already exist are kept by Superset's import, and
databases are only mapped, so nothing else is overwritten.

After it (:func:`after_import`) the objects it wrote are fingerprinted
(:mod:`app.superset.fingerprint`) and the undo is planned: restore the snapshot, import
the kept charts with overwrite, delete what the import created (dashboards, charts,
datasets). Before the undo runs (:func:`drift`) the fingerprint is taken again: an object
someone edited, deleted or re-created since refuses the undo (``changed_since``) rather
than overwrite their work.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from app.i18n import t
from app.superset.bundle import load_bundle
from app.superset.fingerprint import (
    changed,
    export_kind,
    fingerprint,
    ids_by_uuid,
    wanted_of,
)
from app.superset.migration import Plan
from app.superset.paths import api_path
from app.tools.backup.store import read_file, reimport, store_export, store_file
from app.tools.kit import ToolDeps
from app.tools.undo_plan import Inverse, UndoPlan, UndoView

#: the kinds an import writes, and the folder of its plan's diff (and of the card's rows)
KINDS = {"dashboard": "dashboards", "chart": "charts", "dataset": "datasets"}
IMPORT = "import"


def _rows(plan: Plan, kind: str) -> list[dict[str, Any]]:
    return [r for r in plan.diff.get(KINDS[kind]) or [] if r.get("uuid")]


async def before_import(deps: ToolDeps, client: Any, plan: Plan, tool: str) -> dict[str, Any]:
    """Export what ``plan`` will overwrite on ``client``'s environment, before it does:
    ``{"snapshot": backup id | None, "charts_file": file name | None}``."""
    env_id, caps = client.env.id, deps.settings.bundle_caps()
    over = {k: [r["uuid"] for r in _rows(plan, k) if r["action"] == "overwrite"] for k in KINDS}
    snapshot = charts_file = None
    held: set[str] = set()
    dashboards = await ids_by_uuid(client, "dashboard", over["dashboard"])
    if dashboards:
        data = await client.export_dashboards(sorted(dashboards.values()))
        bundle = await load_bundle(data, caps)  # a real export, never stored unread
        held = {str(doc.get("uuid")) for _, doc in bundle.objects("charts")}
        docs = [doc for _, doc in bundle.objects("dashboards")]
        slugs = [str(d["slug"]) for d in docs if d.get("slug")]
        ids = [str(i) for i in dashboards.values()] + slugs
        titles = ", ".join(str(d.get("dashboard_title")) for d in docs)
        row = await store_export(
            deps.db, deps.settings.data_dir, env_id, data, created_by=deps.user_id,
            dashboard_ids=ids, note=f"before {tool}: {titles}", task_id=deps.task_id,
        )  # fmt: skip
        snapshot = row["backup_id"]
    charts = await ids_by_uuid(client, "chart", [u for u in over["chart"] if u not in held])
    if charts:
        data = await export_kind(client, "chart", sorted(charts.values()))
        await load_bundle(data, caps)
        charts_file = await store_file(deps.settings.data_dir, env_id, data, "_charts")
    return {"snapshot": snapshot, "charts_file": charts_file}


async def after_import(
    deps: ToolDeps, client: Any, plan: Plan, before: Mapping[str, Any]
) -> UndoPlan:
    """The undo of ``plan``, now imported: what to restore and delete, and the written
    objects' fingerprint."""
    created = {k: [r["uuid"] for r in _rows(plan, k) if r["action"] == "create"] for k in KINDS}
    touched = {
        "dashboard": [r["uuid"] for r in _rows(plan, "dashboard")],
        "chart": [r["uuid"] for r in _rows(plan, "chart")],
        "dataset": created["dataset"],  # a kept dataset is not written
    }
    summary: dict[str, Any] = {"target_env": client.env.id}
    for kind, folder in KINDS.items():
        summary[folder] = [
            {
                "name": r.get("name") or r["uuid"],
                "uuid": r["uuid"],
                "action": "delete" if r["action"] == "create" else "restore",
            }
            for r in _rows(plan, kind)
            if r["uuid"] in touched[kind]
        ]
    inverse = {**before, "created": created}
    written = await fingerprint(client, touched, deps.settings.bundle_caps())
    return UndoPlan(IMPORT, inverse, written, summary, client.env.id)


def drift_words(
    changes: list[tuple[str, str, str]], summary: Mapping[str, Any], lang: str
) -> list[str]:
    """Each changed object in words: "dashboard “Sales” was edited since"."""
    names = {
        (kind, str(r.get("uuid"))): str(r.get("name"))
        for kind, folder in KINDS.items()
        for r in summary.get(folder) or []
    }
    return [
        t(f"undo_drift_{how}", lang, kind=t(f"undo_kind_{kind}", lang),
          name=names.get((kind, uuid), uuid))
        for kind, uuid, how in changes
    ]  # fmt: skip


async def drift(change: UndoView, deps: ToolDeps) -> list[str]:
    """What changed since the write, in words (empty: nothing)."""
    client = deps.client(change.env_id)
    now = await fingerprint(client, wanted_of(change.fingerprint), deps.settings.bundle_caps())
    return drift_words(changed(change.fingerprint, now), change.summary, deps.lang)


async def delete_created(client: Any, created: Mapping[str, list[str]]) -> dict[str, int]:
    """Delete the objects an import created (dashboards first, then their charts, then
    their datasets); how many of each kind (``deleted_dashboards`` …; none: left out)."""
    deleted: dict[str, int] = {}
    for kind in KINDS:
        found = await ids_by_uuid(client, kind, created.get(kind) or [])
        for object_id in sorted(found.values()):
            await client.delete(api_path(f"/api/v1/{kind}/{{}}", object_id))
        if found:
            deleted[f"deleted_{KINDS[kind]}"] = len(found)
    return deleted


async def run(change: UndoView, deps: ToolDeps) -> dict[str, Any]:
    """Restore what the import overwrote, then delete what it created."""
    env_id = change.env_id or ""
    client = deps.client(env_id)
    inverse = change.inverse
    restored: dict[str, Any] = {}
    if inverse.get("snapshot"):
        done = await reimport(deps, str(inverse["snapshot"]), client)
        titles = [str(d.get("title")) for d in done.get("dashboards") or []]
        restored["restored_dashboards"] = ", ".join(titles)
    if inverse.get("charts_file"):
        caps = deps.settings.bundle_caps()
        name = str(inverse["charts_file"])
        data = await asyncio.to_thread(
            read_file, deps.settings.data_dir, env_id, name, caps.max_bytes
        )
        await client.request(
            "POST", "/api/v1/chart/import/",
            files={"formData": ("charts.zip", data, "application/zip")},
            data={"overwrite": "true"},
        )  # fmt: skip
        restored["restored_charts"] = len(await chart_uuids(data, caps))
    deleted = await delete_created(client, inverse.get("created") or {})
    return {"env_id": env_id, **restored, **deleted}


async def chart_uuids(data: bytes, caps: Any) -> list[str]:
    """The charts of a chart export."""
    bundle = await load_bundle(data, caps)
    return [str(doc.get("uuid")) for _, doc in bundle.objects("charts")]


INVERSE = Inverse(IMPORT, drift=drift, run=run)
