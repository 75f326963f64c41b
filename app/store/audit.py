"""The audit log: append-only rows for every decision of the agent.

There is deliberately no update or delete function here (see ``models.AuditEvent``).
Arguments are redacted before they are stored (``app.redact``): secret-looking keys become
``"***"`` and long strings are cut, so the log never holds a password or a 10 MB payload.
Every text (columns, keys and values) has NUL bytes and lone surrogates replaced by
U+FFFD, which PostgreSQL could not store: one bad value must never fail a batch of rows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from app.redact import cut, redact
from app.store.models import AuditEvent, as_utc

DECISIONS = frozenset({"allow", "deny", "confirm", "cancel", "ok", "error", "refused"})


def _field(value: str | None) -> str | None:
    return None if value is None else cut(str(value))


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
        kind=cut(kind),
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
        client=cut(client) if client is not None else None,
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
