"""The audit table (``AuditEvent``: one decision of the agent) and what keeps it
append-only, in three layers:

1. mapper events ``before_update`` / ``before_delete`` (ORM flushes),
2. a ``do_orm_execute`` hook on every Session (bulk ``update()`` / ``delete()``),
3. database triggers (SQLite ``RAISE(ABORT)``, PostgreSQL plpgsql ``RAISE EXCEPTION``), which
   also stop raw SQL. On PostgreSQL, also ``REVOKE UPDATE, DELETE`` from the app's role.

Layers 1 and 2 raise :class:`app.errors.AuditImmutableError`; layer 3 surfaces as the
driver's ``IntegrityError`` (SQLite) or ``InternalError``/``ProgrammingError`` (PostgreSQL).
The layers are registered when this module is imported, with the table itself.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Text, event
from sqlalchemy.orm import ORMExecuteState
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.schema import DDL, Table
from sqlmodel import Field, SQLModel

from app.errors import AuditImmutableError
from app.store.columns import JsonType, UTCDateTime, utcnow


class AuditEvent(SQLModel, table=True):
    """One decision of the agent. Never updated, never deleted."""

    __tablename__ = "audit_event"

    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    ts: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False, index=True)
    user: str | None = Field(default=None, index=True)
    role: str | None = None
    conv_id: str | None = Field(default=None, index=True)
    kind: str = Field(index=True)
    tool: str | None = Field(default=None, index=True)
    env: str | None = Field(default=None, index=True)
    decision: str | None = Field(default=None, index=True)
    reason: str | None = Field(default=None, sa_type=Text)
    args: dict[str, Any] | list[Any] | None = Field(default=None, sa_type=JsonType)
    duration_ms: float | None = None
    channel: str | None = Field(default=None, index=True)  # the door: page | http | mcp
    client: str | None = None  # the MCP client's name
    superset_user: str | None = None  # the Superset account a call acted as


# Columns added to ``audit_event`` after its first release: init_db adds them to an older
# table (a data dir from an earlier version) so its rows stay and new rows carry them
# (``app.store.migrate``, which lists every table's added columns).
AUDIT_ADDED_COLUMNS = ("channel", "client", "superset_user")

AUDIT_TABLE: Table = AuditEvent.__table__  # type: ignore[attr-defined]  # set by SQLModel

# --- layer 1, mapper events ------------------------------------------------------------------
_IMMUTABLE = "audit events are append-only: {} refused"


def _refuse_update(_mapper: Any, _conn: Any, _target: Any) -> None:
    raise AuditImmutableError(_IMMUTABLE.format("update"))


def _refuse_delete(_mapper: Any, _conn: Any, _target: Any) -> None:
    raise AuditImmutableError(_IMMUTABLE.format("delete"))


event.listen(AuditEvent, "before_update", _refuse_update)
event.listen(AuditEvent, "before_delete", _refuse_delete)


# --- layer 2, bulk statements through any Session --------------------------------------------
def _refuse_bulk(state: ORMExecuteState) -> None:
    if not (state.is_update or state.is_delete):
        return
    table = getattr(state.statement, "table", None)
    mapper = state.bind_mapper
    if table is AUDIT_TABLE or (mapper is not None and mapper.class_ is AuditEvent):
        raise AuditImmutableError(
            _IMMUTABLE.format("bulk update" if state.is_update else "bulk delete")
        )


event.listen(OrmSession, "do_orm_execute", _refuse_bulk)


# --- layer 3, database triggers ----------------------------------------------------------------
_SQLITE_TRIGGERS = [
    f"CREATE TRIGGER IF NOT EXISTS audit_event_no_{op.lower()} BEFORE {op} ON audit_event "
    f"BEGIN SELECT RAISE(ABORT, 'audit_event is append-only: {op} refused'); END"
    for op in ("UPDATE", "DELETE")
]
_PG_TRIGGERS = [
    "CREATE OR REPLACE FUNCTION audit_event_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ "
    "BEGIN RAISE EXCEPTION USING MESSAGE = 'audit_event is append-only: ' || TG_OP || ' refused'; "
    "END $$",
    "CREATE OR REPLACE TRIGGER audit_event_no_change BEFORE UPDATE OR DELETE ON audit_event "
    "FOR EACH ROW EXECUTE FUNCTION audit_event_append_only()",
    "CREATE OR REPLACE TRIGGER audit_event_no_truncate BEFORE TRUNCATE ON audit_event "
    "FOR EACH STATEMENT EXECUTE FUNCTION audit_event_append_only()",
]
TRIGGERS = {"sqlite": _SQLITE_TRIGGERS, "postgresql": _PG_TRIGGERS}

for _dialect, _statements in TRIGGERS.items():
    for _stmt in _statements:
        event.listen(AUDIT_TABLE, "after_create", DDL(_stmt).execute_if(dialect=_dialect))


def ensure_audit_triggers(conn: Connection) -> None:
    """(Re)create the triggers for a table that existed before they did. Idempotent."""
    for stmt in TRIGGERS.get(conn.dialect.name, []):
        conn.exec_driver_sql(stmt)
