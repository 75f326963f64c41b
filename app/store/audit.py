"""The audit log: append-only rows for every decision of the agent, and the per-turn
writes' fast paths.

There is deliberately no update or delete function here (see ``models.AuditEvent``).
Arguments are redacted before they are stored (``app.text.redact``): secret-looking keys become
``"***"`` and long strings are cut, so the log never holds a password or a 10 MB payload.
Every text (columns, keys and values) has NUL bytes and lone surrogates replaced by
U+FFFD, which PostgreSQL could not store: one bad value must never fail a batch of rows.

Read top to bottom: the rows (:func:`audit_values`, :func:`record_audit`,
:func:`insert_audit`) and the audit page's queries (:func:`list_audit`,
:func:`count_audit`); then the two fast paths the audit writer (``app.agent.audit``)
commits a turn's rows through.

**A Core statement as the driver's own SQL** (:class:`DriverStatement`). SQLAlchemy's
``Connection.execute`` costs several times the write itself for a small statement (cache
lookup, parameter processing, result set-up); the statements that run on every turn (the
audit INSERT, the conversation list's upsert in ``app.store.conversations``) are compiled
once per dialect instead, and their values go to the driver positionally, each through its
bind parameter's own processor (the exact stored formats of the column types: a UUID's
hex, SQLite's datetime text, JSON). The statement stays written once, in Core; this only
skips the machinery around it. Positional paramstyles only (SQLite's qmark): PostgreSQL
keeps Core, whose driver adapters (psycopg's JSONB) need the statement's bind casts.

**A short write on the calling thread, for a SQLite file** (:class:`LoopWriter`). With
WAL and ``synchronous=NORMAL`` a SQLite commit is an append to the WAL, with no fsync: a
turn's few audit rows take a fraction of a millisecond to commit, less than handing them
to a thread and waking the event loop again when they are written. A :class:`LoopWriter`
runs such a transaction where it is called (the event loop), on a connection of its own,
only when it can run at once:

* it never waits for a lock: its connection has ``busy_timeout = 0``, so while another
  writer holds the database (a task's progress, a session's commit) the write is declined
  (``run`` returns False) and the caller hands the work to its thread, which waits;
* it never checkpoints the WAL (``wal_autocheckpoint = 0``: copying the WAL into the
  database fsyncs, which must not happen on the loop); the caller checkpoints off the loop
  every ``CHECKPOINT_EVERY`` commits (:func:`checkpoint`);
* one caller at a time (a second event loop's thread is declined, never blocked).

Any failure declines too (the transaction rolled back; the connection closed unless the
database was only busy): the thread's path writes the work again and reports what fails
there (a bad row: row by row). PostgreSQL and an in-memory SQLite (one connection shared
by the whole app) have no fast path (:meth:`LoopWriter.for_engine` gives None).
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict, Unpack

from sqlalchemy import Connection, Dialect, Engine, Text, cast, func, insert
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler
from sqlmodel import Session, col, select

from app.store.models import AUDIT_TABLE, AuditEvent, as_utc, moment_of, where_equal
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


# ---- a Core statement as the driver's own SQL (SQLite) ----------------------------
Processor = Callable[[Any], Any]


@dataclass(frozen=True)
class _Compiled:
    sql: str
    names: tuple[str, ...]  # the value each position takes
    processors: tuple[Processor | None, ...]
    fixed: Mapping[str, Any]  # the statement's own values (its literals)

    def params(self, values: Mapping[str, Any]) -> tuple[Any, ...]:
        out = []
        for name, process in zip(self.names, self.processors, strict=True):
            value = values[name] if name in values else self.fixed[name]
            out.append(value if process is None else process(value))
        return tuple(out)


class DriverStatement:
    """``stmt`` compiled once per dialect; ``given``: the names of the values each run
    passes (every other bind parameter is one of the statement's own literals)."""

    def __init__(self, stmt: ClauseElement, given: Iterable[str]) -> None:
        self._stmt = stmt
        self._given = frozenset(given)
        self._by_dialect: dict[type[Dialect], _Compiled] = {}

    def execute(
        self, conn: Connection, values: Mapping[str, Any] | Sequence[Mapping[str, Any]]
    ) -> Any:
        """Run it on ``conn``'s driver connection, in ``conn``'s transaction (the caller
        commits), with one set of ``values`` (a mapping: the first row it returns, e.g.
        by RETURNING, or None) or many (a sequence: executemany; None)."""
        compiled = self._compiled(conn.dialect)
        cursor = conn.connection.cursor()
        try:
            if isinstance(values, Mapping):
                cursor.execute(compiled.sql, compiled.params(values))
                return cursor.fetchone()
            cursor.executemany(compiled.sql, [compiled.params(v) for v in values])
            return None
        finally:
            cursor.close()

    def _compiled(self, dialect: Dialect) -> _Compiled:
        found = self._by_dialect.get(type(dialect))
        if found is None:
            c = self._stmt.compile(dialect=dialect)
            if not isinstance(c, SQLCompiler) or not c.positiontup:
                raise ValueError(f"{dialect.name}: not a positional paramstyle")
            names = tuple(c.positiontup)
            binds = {name: c.binds[name] for name in names}
            found = _Compiled(
                sql=c.string,
                names=names,
                processors=tuple(
                    binds[n].type.dialect_impl(dialect).bind_processor(dialect) for n in names
                ),
                fixed={n: b.value for n, b in binds.items() if n not in self._given},
            )
            self._by_dialect[type(dialect)] = found
        return found


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


# ---- the loop's own short writes (a SQLite file) ----------------------------------
# Commits between two WAL checkpoints (a turn writes a few pages per commit; SQLite's own
# default is a checkpoint once the WAL passes 1000 pages).
CHECKPOINT_EVERY = 200
_BUSY = ("SQLITE_BUSY", "SQLITE_LOCKED")  # another writer: the connection itself is fine


def checkpoint(conn: Connection) -> tuple[int, int, int]:
    """Copy the WAL into the database as far as no reader needs it (PASSIVE: never waits
    for a reader or writer). Run it off the event loop. SQLite's answer: (1 if it was
    blocked, frames in the WAL, frames copied)."""
    busy, frames, copied = conn.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").one()
    conn.commit()
    return int(busy), int(frames), int(copied)


class LoopWriter:
    """A SQLite file's connection of its own for short transactions that never wait."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._conn: Connection | None = None
        self._lock = threading.Lock()
        self.commits = 0  # transactions committed, for the caller's checkpoint cadence

    @classmethod
    def for_engine(cls, engine: Engine) -> LoopWriter | None:
        """A writer for a SQLite file's engine; None where there is no fast path."""
        if engine.dialect.name != "sqlite" or engine.url.database in (None, "", ":memory:"):
            return None
        return cls(engine)

    def run(self, work: Callable[[Connection], object]) -> bool:
        """Run ``work(conn)`` in one transaction and commit it now; False (nothing written)
        if that cannot be done at once: the database is busy, another thread is writing
        here, or the transaction failed."""
        if not self._lock.acquire(blocking=False):
            return False
        try:
            conn = self._connection()
            with conn.begin():
                work(conn)
        except Exception as exc:  # declined: the caller's thread writes it again, and reports
            name = getattr(getattr(exc, "orig", None), "sqlite_errorname", "")
            log.debug("loop write declined: %s %s", type(exc).__name__, name)
            if name not in _BUSY:  # the connection may be broken: the next run opens anew
                self._close()
            return False
        else:
            self.commits += 1
            return True
        finally:
            self._lock.release()

    def close(self) -> None:
        with self._lock:
            self._close()

    def _connection(self) -> Connection:
        if self._conn is None:
            conn = self._engine.connect()
            conn.detach()  # its settings below never reach the pool's other users
            raw = conn.connection.dbapi_connection
            assert raw is not None
            raw.execute("PRAGMA busy_timeout = 0")
            raw.execute("PRAGMA wal_autocheckpoint = 0")
            self._conn = conn
        return self._conn

    def _close(self) -> None:
        conn, self._conn = self._conn, None
        close_quietly(conn, "loop writer")


def close_quietly(conn: Connection | None, whose: str) -> None:
    """Close ``conn`` (if any); a broken connection may fail to close: it is dropped, and
    the failure logged at debug level (the caller has already reported what broke it)."""
    if conn is None:
        return
    try:
        conn.close()
    except Exception as exc:
        log.debug("%s connection close failed: %s", whose, type(exc).__name__)
