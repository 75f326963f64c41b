"""Catalog of dashboard backups (the files themselves live under the data directory).

Public names follow the module map: ``add``, ``list``, ``get`` (aliases of
``add_backup``, ``newest_backups``, ``get_backup``)."""

from __future__ import annotations

import builtins

from sqlmodel import Session, col, select

from app.store.models import Backup
from app.store.rows import saved


def add_backup(session: Session, backup: Backup) -> Backup:
    """``backup`` (a new row: the file, its environment and dashboards, who took it) in
    the catalog, its dashboard ids as text."""
    backup.dashboard_ids = [str(d) for d in backup.dashboard_ids]
    return saved(session, backup)


def newest_backups(
    session: Session,
    *,
    env_id: str | None = None,
    dashboard_id: str | None = None,
    limit: int = 100,
) -> builtins.list[Backup]:
    """Backups newest first; ``dashboard_id`` keeps those that hold that dashboard (a backup
    with no ids holds every dashboard of its environment)."""
    stmt = select(Backup).order_by(col(Backup.created_at).desc(), col(Backup.id))
    if env_id is not None:
        stmt = stmt.where(col(Backup.env_id) == env_id)
    rows = [*session.exec(stmt)]
    if dashboard_id is not None:
        rows = [r for r in rows if not r.dashboard_ids or str(dashboard_id) in r.dashboard_ids]
    return rows[: max(0, limit)]


def get_backup(session: Session, *, backup_id: str) -> Backup | None:
    return session.get(Backup, backup_id)


add = add_backup
get = get_backup
list = newest_backups  # the module map's name; nothing here uses the builtin
