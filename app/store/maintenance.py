"""Maintenance windows per environment: while one is active, write tools are refused.

Active means: not ended, and no end time or an end time still in the future.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import or_
from sqlmodel import Session, col, select

from app.errors import ToolError
from app.store.columns import as_utc
from app.store.models import Maintenance
from app.store.rows import moment_of, saved


class MaintenanceActiveError(ToolError):
    """The environment already has an active maintenance window."""


def _active_clause(now: datetime):  # type: ignore[no-untyped-def]
    return (col(Maintenance.ended_at).is_(None)) & or_(
        col(Maintenance.ends_at).is_(None), col(Maintenance.ends_at) > now
    )


def active_for(session: Session, *, env_id: str, now: datetime | None = None) -> Maintenance | None:
    """The active window of ``env_id``, or None."""
    moment = moment_of(now)
    stmt = (
        select(Maintenance)
        .where(col(Maintenance.env_id) == env_id, _active_clause(moment))
        .order_by(col(Maintenance.started_at).desc())
    )
    return session.exec(stmt).first()


def list_active(session: Session, *, now: datetime | None = None) -> list[Maintenance]:
    moment = moment_of(now)
    stmt = select(Maintenance).where(_active_clause(moment)).order_by(col(Maintenance.env_id))
    return [*session.exec(stmt)]


def start(
    session: Session,
    window: Maintenance,
    *,
    duration_minutes: int | None = None,
    now: datetime | None = None,
) -> Maintenance:
    """Open ``window`` (a new row: the environment, who, why) ``now``, for
    ``duration_minutes`` (None: until its ``ends_at``, or until ended when it has none).

    Raises :class:`MaintenanceActiveError` if the environment already has one."""
    moment = moment_of(now)
    current = active_for(session, env_id=window.env_id, now=moment)
    if current is not None:
        raise MaintenanceActiveError(
            f"environment '{window.env_id}' is already in maintenance since "
            f"{current.started_at:%Y-%m-%d %H:%M} UTC (by {current.started_by})",
            env_id=window.env_id,
        )
    if duration_minutes is not None:
        if duration_minutes <= 0:
            raise ValueError("duration_minutes must be positive")
        window.ends_at = moment + timedelta(minutes=duration_minutes)
    window.started_at = moment
    window.ends_at = as_utc(window.ends_at) if window.ends_at else None
    return saved(session, window)


def end(
    session: Session, *, env_id: str, ended_by: str, now: datetime | None = None
) -> Maintenance | None:
    """Close the active window of ``env_id``; None when there was none."""
    moment = moment_of(now)
    row = active_for(session, env_id=env_id, now=moment)
    if row is None:
        return None
    row.ended_at = moment
    row.ended_by = ended_by
    return saved(session, row)
