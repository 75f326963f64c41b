"""The audit log's rows: append-only, one for every decision of the agent.

There is deliberately no update or delete function here (see
``app.store.audit_event.AuditEvent``). Arguments are redacted before they are stored
(``app.text.redact``): secret-looking keys become ``"***"`` and long strings are cut, so
the log never holds a password or a 10 MB payload. Every text (columns, keys and values)
has NUL bytes and lone surrogates replaced by U+FFFD, which PostgreSQL could not store:
one bad value must never fail a batch of rows.

Read top to bottom: the rows (:func:`audit_values`, :func:`record_audit`,
:func:`insert_audit`) and the audit page's queries (:func:`list_audit`,
:func:`count_audit`). The audit writer (``app.agent.audit``) commits a turn's rows
through :func:`insert_audit`, on the event loop when it can
(``app.store.loop_writer``).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any, TypedDict, Unpack

from sqlalchemy import Connection, Text, cast, func, insert
from sqlmodel import Session, col, select

from app.store.audit_event import AUDIT_TABLE, AuditEvent
from app.store.columns import as_utc
from app.store.driver_sql import DriverStatement
from app.store.rows import moment_of, where_equal
from app.text import cut, redact

log = logging.getLogger("ss_tools.store")

DECISIONS = frozenset({"allow", "deny", "confirm", "cancel", "ok", "error", "refused"})


def _field(value: str | None) -> str | None:
    return None if value is None else cut(str(value))


#: What a caller gives of a row: its columns by name, all but the ``id`` made here (a
#: caller may name the id itself, to link a later row to this one: an undo to the change).
GIVEN_COLUMNS = frozenset(AUDIT_TABLE.columns.keys()) - {"id"}


def audit_values(**fields: Any) -> dict[str, Any]:
    """One audit row's column values from ``fields`` (:data:`GIVEN_COLUMNS` by name,
    ``kind`` required; another name is a TypeError), checked, redacted and cut (every
    column set: a new id, ``ts`` default now). The one place a row's values are made,
    for both ways in."""
    if not fields.keys() <= GIVEN_COLUMNS | {"id"}:
        raise TypeError(f"not audit columns: {sorted(fields.keys() - GIVEN_COLUMNS)}")
    get = fields.get
    kind, decision, args, client = get("kind"), get("decision"), get("args"), get("client")
    if not kind:
        raise ValueError("audit kind is required")
    if decision is not None and decision not in DECISIONS:
        raise ValueError(f"unknown audit decision {decision!r}; one of {sorted(DECISIONS)}")
    stored_args = redact(args) if args is not None else None
    if stored_args is not None and not isinstance(stored_args, dict | list):
        stored_args = {"value": stored_args}
    return {
        "id": uuid.UUID(str(get("id"))) if get("id") else uuid.uuid4(),
        "ts": moment_of(get("ts")),
        "kind": cut(kind),
        "user": _field(get("user")),
        "role": _field(get("role")),
        "conv_id": _field(get("conv_id")),
        "tool": _field(get("tool")),
        "env": _field(get("env")),
        "decision": decision,
        "reason": _field(get("reason")),
        "args": stored_args,
        "duration_ms": get("duration_ms"),
        "channel": get("channel"),
        "client": cut(client) if client is not None else None,
        "superset_user": _field(get("superset_user")),
    }


def record_audit(session: Session, *, flush: bool = True, **fields: Any) -> AuditEvent:
    """Add one audit row to ``session`` (flushed; the caller commits). ``fields``: those
    of :func:`audit_values` (``ts`` lets a deferred writer keep the moment the decision
    was taken; ``channel`` is the door: page | http | mcp, ``client`` the MCP client)."""
    row = AuditEvent(**audit_values(**fields))
    session.add(row)
    if flush:
        session.flush()
    return row


_INSERT = insert(AUDIT_TABLE)  # built once: it runs for every batch
_INSERT_SQLITE = DriverStatement(_INSERT, given=AUDIT_TABLE.columns.keys())


def insert_audit(conn: Connection, rows: Sequence[dict[str, Any]]) -> None:
    """Insert many rows made by :func:`audit_values` in one statement on a plain
    connection (no ORM objects: the batch writer's path, run for every turn; the caller
    commits). On SQLite as driver SQL with the columns' bind processors (no statement
    compiling: :class:`DriverStatement`); elsewhere through Core."""
    if not rows:
        return
    if conn.dialect.name == "sqlite":
        _INSERT_SQLITE.execute(conn, rows)
    else:
        conn.execute(_INSERT, list(rows))


class AuditFilters(TypedDict, total=False):
    """The filters :func:`list_audit` and :func:`count_audit` take (each optional; None
    means "any"). ``since`` is inclusive, ``until`` exclusive."""

    user: str | None
    tool: str | None
    decision: str | None
    env: str | None
    kind: str | None
    conv_id: str | None
    approval: str | None  # a request for a second person's approval: its whole story
    since: datetime | None
    until: datetime | None


# The filters that match a column exactly; since/until bound the time.
_EQUAL_FILTERS = {
    "user": AuditEvent.user,
    "tool": AuditEvent.tool,
    "decision": AuditEvent.decision,
    "env": AuditEvent.env,
    "kind": AuditEvent.kind,
    "conv_id": AuditEvent.conv_id,
}


def _filtered(stmt: Any, filters: AuditFilters) -> Any:
    stmt = where_equal(stmt, _EQUAL_FILTERS, filters, others=("since", "until", "approval"))
    approval = filters.get("approval")
    if approval:  # every row of its story names it in its args (app.agent.approvals)
        text = cast(col(AuditEvent.args), Text)
        stmt = stmt.where(text.contains(f'"approval_id": "{approval}"', autoescape=True))
    since, until = filters.get("since"), filters.get("until")
    if since is not None:
        stmt = stmt.where(col(AuditEvent.ts) >= as_utc(since))
    if until is not None:
        stmt = stmt.where(col(AuditEvent.ts) < as_utc(until))
    return stmt


def list_audit(
    session: Session, *, limit: int = 500, offset: int = 0, **filters: Unpack[AuditFilters]
) -> list[AuditEvent]:
    """Rows matching every given filter, newest first. ``since`` inclusive, ``until``
    exclusive."""
    stmt = _filtered(select(AuditEvent), filters)
    stmt = stmt.order_by(col(AuditEvent.ts).desc(), col(AuditEvent.id).desc())
    stmt = stmt.offset(max(0, offset)).limit(max(0, limit))
    return [*session.exec(stmt).all()]


def count_audit(session: Session, **filters: Unpack[AuditFilters]) -> int:
    """How many rows match every given filter (those of :func:`list_audit`)."""
    stmt = _filtered(select(func.count()).select_from(AuditEvent), filters)
    return int(session.exec(stmt).one())
