"""The conversation list (issue 11): the core notes each turn of a conversation in the
``conversation`` table (``app.store.conversations``) and reads a person's list back.

A title is the first request, shortened (renamable); ``object_type`` / ``env_id`` are the
page context of the latest turn; ``pending_confirmation`` is set after every run from the
checkpoint (the drawer's badge). Archiving hides an entry and deletes nothing.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from app.agent.audit import AuditWriter
from app.store import conversations
from app.store.conversations import ConversationChange
from app.store.db import Database
from app.store.models import Conversation


@dataclass(frozen=True)
class ConversationSummary:
    """One entry of a person's conversation list."""

    conv_id: str
    title: str
    updated_at: datetime
    env_id: str | None
    object_type: str | None
    pending_confirmation: bool
    archived: bool = False
    owner: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of ``GET /api/agent/conversations``."""
        return {
            "conv_id": self.conv_id,
            "title": self.title,
            "updated_at": self.updated_at.isoformat(),
            "env_id": self.env_id,
            "object_type": self.object_type,
            "pending_confirmation": self.pending_confirmation,
            "archived": self.archived,
        }


def _summary(row: Conversation) -> ConversationSummary:
    """The list's entry of a conversation row: the row's fields of the same names."""
    names = [f.name for f in dataclasses.fields(ConversationSummary)]
    return ConversationSummary(**{name: getattr(row, name) for name in names})


def _note_pending(db: Database, **fields: Any) -> None:
    with db.session() as s:
        conversations.note_pending(s, **fields)


def _list(db: Database, owner: str, archived: bool) -> list[ConversationSummary]:
    with db.session() as s:
        return [_summary(r) for r in conversations.list_for(s, owner=owner, archived=archived)]


def _get(db: Database, conv_id: str) -> ConversationSummary | None:
    with db.session() as s:
        row = conversations.get(s, conv_id=conv_id)
        return None if row is None else _summary(row)


def _update(db: Database, **fields: Any) -> ConversationSummary | None:
    with db.session() as s:
        row = conversations.update(s, **fields)
        return None if row is None else _summary(row)


def note_turn(
    audit: AuditWriter,
    conv_id: str,
    owner: str,
    message: str,
    object_type: str | None,
    env_id: str | None,
) -> asyncio.Future[None]:
    """Write the turn's row in the list in the audit writer's next transaction (with the
    turn's first audit rows: one commit, no thread of its own); ends once committed."""
    return audit.also(
        functools.partial(
            conversations.note_turn,
            conv_id=conv_id,
            owner=owner,
            message=message,
            object_type=object_type,
            env_id=env_id,
        )
    )


async def note_pending(db: Database, conv_id: str, owner: str, pending: bool) -> None:
    await asyncio.to_thread(_note_pending, db, conv_id=conv_id, owner=owner, pending=pending)


async def list_conversations(
    db: Database, owner: str, *, archived: bool = False
) -> list[ConversationSummary]:
    return await asyncio.to_thread(_list, db, owner, archived)


async def get_conversation(db: Database, conv_id: str) -> ConversationSummary | None:
    return await asyncio.to_thread(_get, db, conv_id)


async def update_conversation(
    db: Database, conv_id: str, owner: str, change: ConversationChange
) -> ConversationSummary | None:
    return await asyncio.to_thread(_update, db, conv_id=conv_id, owner=owner, change=change)
