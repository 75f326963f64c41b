"""Conversation metadata: who owns a conversation, its title, the page context it was
asked under, when it was last updated, whether a confirmation waits, and whether it is
archived. The messages themselves live in the LangGraph checkpoint; archiving hides a
conversation from the list and deletes nothing (its checkpoint and audit trail stay).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Table, bindparam
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from app.store.driver_sql import DriverStatement
from app.store.models import Conversation
from app.store.rows import moment_of, saved

CONVERSATION_TABLE: Table = Conversation.__table__  # type: ignore[attr-defined]  # SQLModel's

TITLE_MAX = 80
LIST_LIMIT = 200


@dataclass(frozen=True)
class ConversationChange:
    """A person's change to their conversation: a new ``title`` and/or ``archived``
    (None leaves that field as it is)."""

    title: str | None = None
    archived: bool | None = None

    def given(self) -> dict[str, Any]:
        """The fields this change sets (the audit row's args)."""
        return {name: value for name, value in asdict(self).items() if value is not None}


def short_title(text: str, limit: int = TITLE_MAX) -> str:
    """The first request, shortened at a word boundary ("…" when cut); one line."""
    printable = "".join(ch if ch.isprintable() else " " for ch in text or "")
    flat = " ".join(printable.split())
    if len(flat) <= limit:
        return flat
    cut = flat[: limit - 1]
    space = cut.rfind(" ")
    if space > limit // 2:
        cut = cut[:space]
    return cut.rstrip(" ,.;:") + "…"


def get(session: Session, *, conv_id: str) -> Conversation | None:
    return session.get(Conversation, conv_id)


def _turn_upsert(insert: Any) -> Any:
    """The turn's upsert, built once per dialect with its values as bind parameters (a
    statement built per call costs more than the write itself)."""
    table = CONVERSATION_TABLE
    new = insert(table)
    moment: Any = bindparam("updated_at")
    return (
        new.values(
            conv_id=bindparam("conv_id"),
            owner=bindparam("owner"),
            title=bindparam("title"),
            pending_confirmation=False,
            archived=False,
            created_at=moment,
            object_type=bindparam("object_type"),
            env_id=bindparam("env_id"),
            updated_at=moment,
        )
        .on_conflict_do_update(
            index_elements=[table.c.conv_id],
            set_={
                "object_type": new.excluded.object_type,
                "env_id": new.excluded.env_id,
                "updated_at": new.excluded.updated_at,
                "pending_confirmation": False,
            },
            where=table.c.owner == bindparam("owner"),
        )
        .returning(table.c.conv_id)
    )


_TURN_VALUES = ("conv_id", "owner", "title", "object_type", "env_id", "updated_at")
_TURN_UPSERT_PG = _turn_upsert(pg_insert)
_TURN_UPSERT_SQLITE = DriverStatement(_turn_upsert(sqlite_insert), given=_TURN_VALUES)


def note_turn(
    conn: Connection,
    *,
    conv_id: str,
    owner: str,
    message: str,
    object_type: str | None,
    env_id: str | None,
    now: datetime | None = None,
) -> bool:
    """A turn of ``owner`` in ``conv_id``: create the row (title = the first request,
    shortened) or refresh its context and ``updated_at``; no confirmation waits any more
    (a new message supersedes it). Another user's row is left alone (False). One upsert
    on a plain connection (no ORM unit of work: it runs on every turn, on SQLite as driver
    SQL, ``app.store.driver_sql.DriverStatement``; the caller commits)."""
    values = {
        "conv_id": conv_id,
        "owner": owner,
        "title": short_title(message),
        "object_type": object_type,
        "env_id": env_id,
        "updated_at": moment_of(now),
    }
    if conn.dialect.name == "sqlite":
        return _TURN_UPSERT_SQLITE.execute(conn, values) is not None
    return conn.execute(_TURN_UPSERT_PG, values).first() is not None


def note_pending(
    session: Session, *, conv_id: str, owner: str, pending: bool, now: datetime | None = None
) -> Conversation | None:
    """Whether a confirmation waits in ``conv_id`` after a run (the list's badge)."""
    row = session.get(Conversation, conv_id)
    if row is None or row.owner != owner:
        return None
    row.pending_confirmation = pending
    row.updated_at = moment_of(now)
    return saved(session, row)


def list_for(
    session: Session, *, owner: str, archived: bool = False, limit: int = LIST_LIMIT
) -> list[Conversation]:
    """``owner``'s conversations, newest first; archived ones only when ``archived``."""
    stmt = (
        select(Conversation)
        .where(col(Conversation.owner) == owner, col(Conversation.archived) == archived)
        .order_by(col(Conversation.updated_at).desc(), col(Conversation.conv_id))
        .limit(limit)
    )
    return list(session.exec(stmt))


def update(
    session: Session, *, conv_id: str, owner: str, change: ConversationChange
) -> Conversation | None:
    """Rename and/or (un)archive ``owner``'s conversation (None: not theirs, or none).
    ``updated_at`` is kept: renaming is not activity."""
    row = session.get(Conversation, conv_id)
    if row is None or row.owner != owner:
        return None
    if change.title is not None:
        row.title = short_title(change.title)
    if change.archived is not None:
        row.archived = change.archived
    return saved(session, row)
