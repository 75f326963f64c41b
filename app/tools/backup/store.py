"""Where exports are kept on the server: backups, and the snapshots taken before a write.

A stored export is a zip at ``<data_dir>/backups/<env_id>/<UTC ts>_<id>.zip``. A backup
(a backup run, the one before a delete) and the snapshot an undoable import takes of what
it will overwrite (:mod:`app.tools.import_undo`) are both indexed as ``Backup`` rows, so
the listing of backups shows them and a restore can bring one back by hand. A chart
export kept for an undo is a file beside them, with no row (only the undo reads it).
Paths stay on the server: results name files, never paths.
"""

from __future__ import annotations

import asyncio
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from uuid import uuid4

from sqlmodel import Session

from app.errors import ToolError
from app.policy.toolspec import finder_of
from app.store import backups as backup_store
from app.store.db import Database
from app.store.models import Backup
from app.superset.bundle import Bundle, BundleError, load_bundle
from app.superset.migration import Reporter, plan_bundle, run_migration
from app.tools.backup import spec as specs
from app.tools.kit import ToolDeps

#: the tool that lists the stored backups (a missing backup's error names it)
LISTING = finder_of(specs.family.specs, "backup")


def backup_dir(data_dir: Path, env_id: str) -> Path:
    return Path(data_dir).resolve() / "backups" / env_id


def write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".zip.part")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def new_path(data_dir: Path, env_id: str, suffix: str = "") -> tuple[str, Path]:
    """A new stored export's id and path (``suffix`` names a kind of file: ``_charts``)."""
    file_id = uuid4().hex
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    return file_id, backup_dir(data_dir, env_id) / f"{stamp}_{file_id}{suffix}.zip"


async def store_export(
    db: Database,
    data_dir: Path,
    env_id: str,
    data: bytes,
    *,
    created_by: str,
    dashboard_ids: list[str],
    note: str,
    task_id: str | None = None,
    at: tuple[str, Path] | None = None,
) -> dict[str, Any]:
    """``data`` (a dashboards export) written and indexed as a backup of ``env_id`` (at
    ``at``, a :func:`new_path`, when the caller named the file already); its row as
    results show it (:func:`view_of`)."""
    backup_id, path = at or new_path(data_dir, env_id)
    await asyncio.to_thread(write_atomically, path, data)
    row = Backup(
        id=backup_id, env_id=env_id, path=str(path), created_by=created_by,
        dashboard_ids=dashboard_ids, size_bytes=len(data), note=note[:2000], task_id=task_id,
    )  # fmt: skip

    def index() -> dict[str, Any]:
        with db.session() as session:
            return view_of(backup_store.add_backup(session, row))

    return await asyncio.to_thread(index)


async def store_file(data_dir: Path, env_id: str, data: bytes, suffix: str) -> str:
    """``data`` kept beside the backups with no index row; its file name."""
    _, path = new_path(data_dir, env_id, suffix)
    await asyncio.to_thread(write_atomically, path, data)
    return path.name


def read_file(data_dir: Path, env_id: str, name: str, max_bytes: int) -> bytes:
    """A file :func:`store_file` kept (blocking); a name that is not a plain file name of
    that folder, a missing file or one over ``max_bytes`` is a ToolError."""
    folder = backup_dir(data_dir, env_id)
    path = (folder / name).resolve()
    if path.parent != folder or not path.is_file():
        raise ToolError(f"the stored export {name!r} is missing")
    if path.stat().st_size > max_bytes:
        raise ToolError(f"the stored export {name!r} is over the export limit: not read")
    return path.read_bytes()


def view_of(row: Backup) -> dict[str, Any]:
    """A backup's row as results show it (the file's name, never its path)."""
    return {
        "backup_id": row.id,
        "env_id": row.env_id,
        "dashboards": row.dashboard_ids or "all",
        "created_at": row.created_at.isoformat(),
        "created_by": row.created_by,
        "size_bytes": row.size_bytes,
        "file": Path(row.path).name,
        "note": row.note,
        "task_id": row.task_id,
    }


# ---- a stored backup, read back -----------------------------------------------------------
def _backup(session: Session, backup_id: str) -> Backup:
    row = backup_store.get_backup(session, backup_id=backup_id.strip())
    if row is None:
        raise ToolError(f"no backup '{backup_id}'; {LISTING} shows the stored ones")
    return row


def backup_env(db: Database, backup_id: str) -> str:
    """The environment a stored backup was taken on (blocking)."""
    with db.session() as session:
        return _backup(session, backup_id).env_id


def _load_backup(db: Database, backup_id: str, max_bytes: int) -> tuple[dict[str, Any], bytes]:
    """The backup's row and its zip; a file larger than an export may unpack to is not
    read (a zip is never larger than what it holds, give or take its directory)."""
    with db.session() as session:
        row = _backup(session, backup_id)
        view, path = view_of(row), Path(row.path)
    if not path.is_file():
        raise ToolError(f"backup '{backup_id}' is indexed but its file is missing ({path.name})")
    size = path.stat().st_size
    if size > max_bytes:
        raise BundleError(
            f"backup '{backup_id}' is {size} bytes, over the export limit of {max_bytes}: not read"
        )
    return view, path.read_bytes()


async def backup_bundle(deps: ToolDeps, backup_id: str) -> tuple[dict[str, Any], Bundle]:
    """A stored backup's row and its export, read within the settings' caps."""
    caps = deps.settings.bundle_caps()
    view, data = await asyncio.to_thread(_load_backup, deps.db, backup_id, caps.max_bytes)
    return view, await load_bundle(data, caps)


async def reimport(
    deps: ToolDeps, backup_id: str, client: Any, ctx: Reporter | None = None
) -> dict[str, Any]:
    """A stored backup imported with overwrite into ``client``'s environment, through the
    migration path (the undo of a delete, and of an import: what it overwrote)."""
    view, bundle = await backup_bundle(deps, backup_id)
    plan = await plan_bundle(view["env_id"], bundle, client)
    return await run_migration(plan, client, ctx, lang=deps.lang)
