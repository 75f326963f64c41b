"""All tables of the product (SQLModel). UUID or string keys, timezone-aware UTC timestamps.

``AuditEvent`` is append-only, enforced in three layers:

1. mapper events ``before_update`` / ``before_delete`` (ORM flushes),
2. a ``do_orm_execute`` hook on every Session (bulk ``update()`` / ``delete()``),
3. database triggers (SQLite ``RAISE(ABORT)``, PostgreSQL plpgsql ``RAISE EXCEPTION``), which
   also stop raw SQL. On PostgreSQL, also ``REVOKE UPDATE, DELETE`` from the app's role.

Layers 1 and 2 raise :class:`app.errors.AuditImmutableError`; layer 3 surfaces as the
driver's ``IntegrityError`` (SQLite) or ``InternalError``/``ProgrammingError`` (PostgreSQL).

At the end, the small row helpers of the store modules: :func:`saved` (add and flush one
row), :func:`new_row` (make, add and flush one), :func:`changed` (how many rows a bulk
UPDATE or DELETE changed), :func:`where_equal` (a filter a column each) and
:func:`moment_of` (the time a call acts at).
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, Protocol, Self, TypeVar, cast

from sqlalchemy import JSON, Connection, DateTime, Text, TypeDecorator, event
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import CursorResult, Result
from sqlalchemy.orm import ORMExecuteState
from sqlalchemy.orm import Session as OrmSession
from sqlalchemy.schema import DDL, Table
from sqlmodel import Field, Session, SQLModel, col

from app.errors import AuditImmutableError

JsonType = JSON().with_variant(JSONB(), "postgresql")


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """Naive datetimes are taken as UTC; aware ones are converted to UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """``DateTime(timezone=True)`` that always returns aware UTC values.

    SQLite stores no zone, so values are written as naive UTC there and read back as UTC;
    comparisons in SQL stay consistent on both databases."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        value = as_utc(value)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        return None if value is None else as_utc(value)


def _uuid_hex() -> str:
    return uuid.uuid4().hex


def _confirmation_id() -> str:
    return secrets.token_urlsafe(24)


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


class User(SQLModel, table=True):
    __tablename__ = "app_user"

    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    username: str = Field(unique=True, index=True)
    role: str
    password_hash: str
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    disabled: bool = False
    # new at every credential change (password, role, disable; a new account): a token or
    # page session carries the stamp it was issued under (issue 23 item 9)
    token_stamp: str | None = Field(default_factory=lambda: secrets.token_urlsafe(12))
    # the Superset username this user acts as on identity = "assertion" environments: set
    # by an operator (main.py users set-superset-username), never guessed from a name
    superset_username: str | None = None


class Task(SQLModel, table=True):
    """A long-running job (migration, backup, restore) driven by a worker."""

    __tablename__ = "task"

    id: str = Field(default_factory=_uuid_hex, primary_key=True)
    kind: str = Field(index=True)
    status: str = Field(default="queued", index=True)
    step: int = 0
    total: int = 0
    message: str = Field(default="", sa_type=Text)
    result: dict[str, Any] | list[Any] | None = Field(default=None, sa_type=JsonType)
    error: str | None = Field(default=None, sa_type=Text)
    user: str | None = Field(default=None, index=True)
    conv_id: str | None = Field(default=None, index=True)
    env_id: str | None = None
    owner: str | None = Field(default=None, index=True)  # "host:pid" of the running process
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


class Maintenance(SQLModel, table=True):
    __tablename__ = "maintenance"

    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    env_id: str = Field(index=True)
    started_by: str
    reason: str = Field(default="", sa_type=Text)
    started_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    ends_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    ended_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    ended_by: str | None = None


class Confirmation(SQLModel, table=True):
    """A pending person's confirmation of one tool call; single use."""

    __tablename__ = "confirmation"

    id: str = Field(default_factory=_confirmation_id, primary_key=True)
    conv_id: str = Field(index=True)
    user_id: str
    tool_name: str
    call_id: str
    args_hash: str
    env_id: str | None = None
    risk_level: str
    countdown_s: int = 0  # a dangerous call's wait before it may be confirmed (policy's)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    sent_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    expires_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    used_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    decision: str | None = None
    edited_args_hash: str | None = None  # set when confirmed with edited arguments


class Conversation(SQLModel, table=True):
    """A conversation's metadata (its messages live in the LangGraph checkpoint)."""

    __tablename__ = "conversation"

    conv_id: str = Field(primary_key=True)
    owner: str = Field(index=True)
    title: str = Field(default="", sa_type=Text)
    object_type: str | None = None
    env_id: str | None = None
    pending_confirmation: bool = False
    archived: bool = Field(default=False, index=True)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    updated_at: datetime = Field(
        default_factory=utcnow, sa_type=UTCDateTime, nullable=False, index=True
    )


class UserRate(SQLModel, table=True):
    """One user's pace of one kind of request (``turn:<user>`` / ``call:<user>``), for
    every replica (``app.store.user_rates``): ``tat`` is when the user's bucket is full
    again (epoch seconds; the "theoretical arrival time" of a GCRA limiter)."""

    __tablename__ = "user_rate"

    key: str = Field(primary_key=True)
    tat: float = Field(default=0.0, index=True)
    allowed: bool = True  # the latest request's answer (set by the same statement)


class RunSlot(SQLModel, table=True):
    """One of a user's slots for running turns (``app.store.run_slots``): numbered
    ``0 .. user_max_running - 1``, held by one run (``lease``) until it ends or its
    ``expires_at`` (epoch seconds) passes without a renewal (a replica that died)."""

    __tablename__ = "run_slot"

    user_key: str = Field(primary_key=True)
    slot: int = Field(primary_key=True)
    lease: str
    holder: str  # the replica and process that runs it (``app.replica.replica_id``)
    conv_id: str | None = None
    expires_at: float = Field(index=True)


class Backup(SQLModel, table=True):
    __tablename__ = "backup"

    id: str = Field(default_factory=_uuid_hex, primary_key=True)
    env_id: str = Field(index=True)
    dashboard_ids: list[str] = Field(default_factory=list, sa_type=JsonType, nullable=False)
    path: str
    size_bytes: int = 0
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    created_by: str
    note: str = Field(default="", sa_type=Text)
    task_id: str | None = None


class PageSession(SQLModel, table=True):
    """A signed-in browser of the pages, or a one-time sign-in ticket (``kind``).

    The key is a SHA-256 of NiceGUI's browser id (or of the ticket), so neither the table
    nor the page storage on disk holds anything a visitor could replay."""

    __tablename__ = "page_session"

    key_hash: str = Field(primary_key=True)
    kind: str = Field(index=True)  # "session" | "ticket"
    username: str = Field(index=True)
    role: str
    bound_to: str | None = None  # a ticket: the hash of the browser id that signed in
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    expires_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    ended_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    stamp: str | None = None  # the user's token stamp at sign-in (User.token_stamp)


class LoginThrottle(SQLModel, table=True):
    """Sign-in attempts of one username (``user:<name>``) or one client (``client:<ip>``)
    in the current window, counted before the password is checked (``failures``; a
    success clears or refunds its own); shared by every replica through the database.
    ``allowed`` and ``closed_failures`` answer the latest attempt (``app.store.throttle``)."""

    __tablename__ = "login_throttle"

    key: str = Field(primary_key=True)
    window_start: datetime = Field(sa_type=UTCDateTime, nullable=False)
    failures: int = 0
    blocked_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    allowed: bool = True
    closed_failures: int = 0
    updated_at: datetime = Field(
        default_factory=utcnow, sa_type=UTCDateTime, nullable=False, index=True
    )


class RunSignal(SQLModel, table=True):
    """A conversation's running turn, for the other replicas (``app.store.run_signals``):
    where it runs (``replica``: ``app.replica.replica_id``), for whom, a heartbeat, and a
    stop asked from any replica with the running replica's answer (``stopped_at``, the
    writes it let run on). One row per conversation (one run at a time: the run lock);
    deleted when the run ends."""

    __tablename__ = "run_signal"

    conv_id: str = Field(primary_key=True)
    run_id: str = Field(default_factory=_uuid_hex)
    replica: str = Field(index=True)
    user_id: str | None = None
    started_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    heartbeat_at: datetime = Field(
        default_factory=utcnow, sa_type=UTCDateTime, nullable=False, index=True
    )
    stop_requested_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    stop_requested_by: str | None = None
    stopped_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    writes_in_flight: list[dict[str, Any]] | None = Field(default=None, sa_type=JsonType)


# --- append-only audit: layer 1, mapper events ---------------------------------------------
_IMMUTABLE = "audit events are append-only: {} refused"


def _refuse_update(_mapper: Any, _conn: Any, _target: Any) -> None:
    raise AuditImmutableError(_IMMUTABLE.format("update"))


def _refuse_delete(_mapper: Any, _conn: Any, _target: Any) -> None:
    raise AuditImmutableError(_IMMUTABLE.format("delete"))


event.listen(AuditEvent, "before_update", _refuse_update)
event.listen(AuditEvent, "before_delete", _refuse_delete)


AUDIT_TABLE: Table = AuditEvent.__table__  # type: ignore[attr-defined]  # set by SQLModel


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


# ---- row helpers of the store modules ------------------------------------------------
Row = TypeVar("Row")


class Filterable(Protocol):
    """A statement that takes WHERE clauses (a select, an update, a delete)."""

    def where(self, *clauses: Any) -> Self: ...


Stmt = TypeVar("Stmt", bound=Filterable)


def saved(session: Session, row: Row) -> Row:
    """``row`` added to ``session`` and flushed (defaults and ids filled; the caller
    commits)."""
    session.add(row)
    session.flush()
    return row


def new_row(session: Session, model: type[Row], row_id: str | None = None, **fields: Any) -> Row:
    """A new ``model`` row of ``fields``, saved; its id ``row_id`` when given, else the
    model's own default."""
    if row_id:
        fields["id"] = row_id
    return saved(session, model(**fields))


def changed(result: Result[Any]) -> int:
    """The number of rows the statement behind ``result`` changed (0 when unknown).
    SQLAlchemy types ``execute`` as a plain ``Result``; for a bulk UPDATE or DELETE it is
    a ``CursorResult`` with ``rowcount``."""
    return int(cast(CursorResult[Any], result).rowcount or 0)


def where_equal(
    stmt: Stmt, columns: Mapping[str, Any], values: Mapping[str, Any], *, others: Iterable[str] = ()
) -> Stmt:
    """``stmt`` narrowed to the rows whose column equals each value given (a value None,
    or missing, means "any"); ``columns`` maps a filter's name to its column. A name in
    ``values`` that is neither a column's nor one of ``others`` is a TypeError."""
    unknown = values.keys() - columns.keys() - set(others)
    if unknown:
        raise TypeError(f"unknown filter(s): {sorted(unknown)}")
    for name, column in columns.items():
        value = values.get(name)
        if value is not None:
            stmt = stmt.where(col(column) == value)
    return stmt


def moment_of(now: datetime | None) -> datetime:
    """The time a call acts at: ``now`` in UTC when given (tests pin it), else the clock."""
    return as_utc(now) if now else utcnow()
