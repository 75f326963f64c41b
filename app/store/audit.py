"""The audit log: append-only rows for every decision of the agent.

There is deliberately no update or delete function here (see ``models.AuditEvent``).
Arguments are redacted before they are stored: secret-looking keys become ``"***"`` and
long strings are cut, so the log never holds a password or a 10 MB payload. Every text
(columns, keys and values) has NUL bytes and lone surrogates replaced by U+FFFD, which
PostgreSQL could not store: one bad value must never fail a batch of rows.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Mapping
from datetime import date, datetime
from enum import Enum
from pathlib import PurePath
from typing import Any

from pydantic import BaseModel
from sqlalchemy import func
from sqlmodel import Session, col, select

from app.store.models import AuditEvent, as_utc
from app.text import clean_text

SECRET_KEY_PARTS = (
    "password",
    "passwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "authorization",
    "cookie",
    "credential",
    "private_key",
)
REDACTED = "***"
MAX_STRING = 2000
MAX_DEPTH = 12
DECISIONS = frozenset({"allow", "deny", "confirm", "cancel", "ok", "error", "refused"})


def is_secret_key(key: object) -> bool:
    k = str(key).lower().replace("-", "_")
    return any(part in k for part in SECRET_KEY_PARTS)


def _cut(text: str) -> str:
    """Storable text: NUL and lone surrogates replaced (PostgreSQL refuses both, and one
    bad value would fail the whole batch), then cut to ``MAX_STRING``."""
    text = clean_text(text)
    if len(text) <= MAX_STRING:
        return text
    return text[: MAX_STRING - 1] + "…"


def _field(value: str | None) -> str | None:
    return None if value is None else _cut(str(value))


def redact(value: Any, _depth: int = 0) -> Any:
    """A JSON-safe copy of ``value`` with secret keys masked and long strings cut."""
    if _depth > MAX_DEPTH:
        return "…"
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, Mapping):
        return {
            _cut(str(k)): REDACTED if is_secret_key(k) else redact(v, _depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        return [redact(v, _depth + 1) for v in value]
    if isinstance(value, str):
        return _cut(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # NaN / Infinity are not JSON (PostgreSQL's JSONB refuses them)
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Enum):
        return redact(value.value, _depth + 1)
    if isinstance(value, uuid.UUID | PurePath):
        return str(value)
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    return _cut(repr(value))


def record_audit(
    session: Session,
    *,
    kind: str,
    user: str | None = None,
    role: str | None = None,
    conv_id: str | None = None,
    tool: str | None = None,
    env: str | None = None,
    decision: str | None = None,
    reason: str | None = None,
    args: Any = None,
    duration_ms: float | None = None,
    ts: datetime | None = None,
    flush: bool = True,
    channel: str | None = None,
    client: str | None = None,
) -> AuditEvent:
    """Add one audit row to ``session`` (flushed; the caller commits). ``ts`` lets a
    deferred writer keep the moment the decision was taken (default: now). ``channel``
    is the door the decision came through (page | http | mcp), ``client`` the MCP client."""
    if not kind:
        raise ValueError("audit kind is required")
    if decision is not None and decision not in DECISIONS:
        raise ValueError(f"unknown audit decision {decision!r}; one of {sorted(DECISIONS)}")
    stored_args = redact(args) if args is not None else None
    if stored_args is not None and not isinstance(stored_args, dict | list):
        stored_args = {"value": stored_args}
    row = AuditEvent(
        kind=_cut(kind),
        user=_field(user),
        role=_field(role),
        conv_id=_field(conv_id),
        tool=_field(tool),
        env=_field(env),
        decision=decision,
        reason=_field(reason),
        args=stored_args,
        duration_ms=duration_ms,
        channel=channel,
        client=_cut(client) if client is not None else None,
    )
    if ts is not None:
        row.ts = as_utc(ts)
    session.add(row)
    if flush:  # a batch writer passes False and lets the commit flush all rows at once
        session.flush()
    return row


def _filtered(
    stmt: Any,
    *,
    user: str | None,
    tool: str | None,
    decision: str | None,
    env: str | None,
    kind: str | None,
    conv_id: str | None,
    since: datetime | None,
    until: datetime | None,
) -> Any:
    for column, value in (
        (AuditEvent.user, user),
        (AuditEvent.tool, tool),
        (AuditEvent.decision, decision),
        (AuditEvent.env, env),
        (AuditEvent.kind, kind),
        (AuditEvent.conv_id, conv_id),
    ):
        if value is not None:
            stmt = stmt.where(col(column) == value)
    if since is not None:
        stmt = stmt.where(col(AuditEvent.ts) >= as_utc(since))
    if until is not None:
        stmt = stmt.where(col(AuditEvent.ts) < as_utc(until))
    return stmt


def list_audit(
    session: Session,
    *,
    user: str | None = None,
    tool: str | None = None,
    decision: str | None = None,
    env: str | None = None,
    kind: str | None = None,
    conv_id: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: int = 500,
    offset: int = 0,
) -> list[AuditEvent]:
    """Rows matching every given filter, newest first. ``since`` inclusive, ``until``
    exclusive."""
    stmt = _filtered(
        select(AuditEvent),
        user=user,
        tool=tool,
        decision=decision,
        env=env,
        kind=kind,
        conv_id=conv_id,
        since=since,
        until=until,
    )
    stmt = stmt.order_by(col(AuditEvent.ts).desc(), col(AuditEvent.id).desc())
    stmt = stmt.offset(max(0, offset)).limit(max(0, limit))
    return [*session.exec(stmt).all()]


def count_audit(
    session: Session,
    *,
    user: str | None = None,
    tool: str | None = None,
    decision: str | None = None,
    env: str | None = None,
    kind: str | None = None,
    conv_id: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> int:
    stmt = _filtered(
        select(func.count()).select_from(AuditEvent),
        user=user,
        tool=tool,
        decision=decision,
        env=env,
        kind=kind,
        conv_id=conv_id,
        since=since,
        until=until,
    )
    return int(session.exec(stmt).one())
