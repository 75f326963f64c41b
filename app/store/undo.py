"""Undoable changes: one row per write the agent made that can be undone, for its
retention period (``Settings.undo_retention_days``; ``app.agent.undo``).

A row holds what the undo needs and nothing a person typed freely: the change (tool,
arguments, environment, the call and conversation it came from, the audit row of its
execution), how to invert it (``kind`` and ``inverse``), what the touched objects looked
like right after the write (``fingerprint``: compared before the undo, so drift is never
overwritten silently) and what the card lists (``summary``).

Its ``state`` moves ``open`` → ``running`` (:func:`claim`: one undo at a time, whoever
asks, on any replica) → ``undone`` (:func:`finish`), or back to ``open`` when the undo
failed (:func:`release`). Audit rows stay append-only: "undone by" is this row's
``undone_by``/``undone_at`` and a later ``undone`` audit row, never a change to the
original's.
"""

from __future__ import annotations

import builtins
import uuid
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlmodel import Field, Session, SQLModel, col, select

from app.store.columns import JsonType, UTCDateTime, utcnow
from app.store.rows import changed, moment_of

OPEN, RUNNING, UNDONE = "open", "running", "undone"


def _undo_id() -> str:
    return uuid.uuid4().hex


class UndoRecord(SQLModel, table=True):
    """One undoable change (see the module docstring)."""

    __tablename__ = "undo_record"

    id: str = Field(default_factory=_undo_id, primary_key=True)
    kind: str  # how it is undone (the kind of its tool's inverse: app.tools.undo_plan)
    tool_name: str = Field(index=True)
    tool_args: dict[str, Any] = Field(default_factory=dict, sa_type=JsonType, nullable=False)
    env_id: str | None = None
    description: str = ""  # the change in words (its card line, in the turn's language)
    call_id: str = ""
    conv_id: str = Field(default="", index=True)
    user_id: str = ""
    audit_id: str | None = Field(default=None, index=True)  # the execution's audit row
    inverse: dict[str, Any] = Field(default_factory=dict, sa_type=JsonType, nullable=False)
    fingerprint: dict[str, Any] = Field(default_factory=dict, sa_type=JsonType, nullable=False)
    summary: dict[str, Any] = Field(default_factory=dict, sa_type=JsonType, nullable=False)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    expires_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    state: str = Field(default=OPEN, index=True)
    undone_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    undone_by: str | None = None


def add(session: Session, record: UndoRecord) -> UndoRecord:
    """``record`` stored (the caller commits)."""
    session.add(record)
    session.flush()
    return record


def get(session: Session, *, undo_id: str) -> UndoRecord | None:
    return session.get(UndoRecord, undo_id.strip())


WHY_NOT = {
    "unknown": "there is no such change",
    "undone": "it was already undone",
    "running": "it is being undone right now",
    "expired": "its undo expired",
}


def why_not(record: UndoRecord | None, now: datetime | None = None) -> str | None:
    """Why ``record`` cannot be undone now, as a key of :data:`WHY_NOT` (unknown,
    undone, running, expired), or None when it can."""
    if record is None:
        return "unknown"
    if record.state == UNDONE:
        return "undone"
    if record.state == RUNNING:
        return "running"
    if record.expires_at <= moment_of(now):
        return "expired"
    return None


def available(
    session: Session, *, undo_ids: Iterable[str], now: datetime | None = None
) -> set[str]:
    """Those of ``undo_ids`` that can still be undone (open, not expired)."""
    ids = {i for i in undo_ids if i}
    if not ids:
        return set()
    rows = session.exec(select(UndoRecord).where(col(UndoRecord.id).in_(ids)))
    return {r.id for r in rows if why_not(r, now) is None}


def claim(session: Session, *, undo_id: str, by: str, now: datetime | None = None) -> bool:
    """Mark an open, unexpired change as being undone by ``by`` (one winner among racing
    undos, on any replica: a conditional UPDATE). False when it was not open."""
    moment = moment_of(now)
    result = session.execute(
        update(UndoRecord)
        .where(
            col(UndoRecord.id) == undo_id,
            col(UndoRecord.state) == OPEN,
            col(UndoRecord.expires_at) > moment,
        )
        .values(state=RUNNING, undone_by=by)
    )
    return changed(result) == 1


def finish(session: Session, *, undo_id: str, now: datetime | None = None) -> None:
    """The undo ran: the change is undone (for good)."""
    session.execute(
        update(UndoRecord)
        .where(col(UndoRecord.id) == undo_id, col(UndoRecord.state) == RUNNING)
        .values(state=UNDONE, undone_at=moment_of(now))
    )


def release(session: Session, *, undo_id: str) -> None:
    """The undo failed before it finished: the change is open again (a new undo is
    checked for drift first, so a partial undo is refused rather than repeated)."""
    session.execute(
        update(UndoRecord)
        .where(col(UndoRecord.id) == undo_id, col(UndoRecord.state) == RUNNING)
        .values(state=OPEN, undone_by=None)
    )


def undone_for_audit(
    session: Session, *, audit_ids: Iterable[str]
) -> dict[str, builtins.tuple[str, datetime]]:
    """audit id → (who undid it, when), for the executions among ``audit_ids`` that were
    undone (the audit page's "undone by")."""
    ids = {i for i in audit_ids if i}
    if not ids:
        return {}
    stmt = select(UndoRecord).where(
        col(UndoRecord.audit_id).in_(ids), col(UndoRecord.state) == UNDONE
    )
    return {
        str(r.audit_id): (r.undone_by or "", r.undone_at or r.created_at)
        for r in session.exec(stmt)
    }
