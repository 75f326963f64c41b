"""Engines and sessions for the product's own tables (SQLite by default, PostgreSQL optional).

A :class:`Database` is one engine with its tables (``Database.open(url)``); its
``session()`` is the unit of work: it commits on success and rolls back on error. Objects
stay readable after the block (``expire_on_commit=False``). Data functions take the
session; the caller owns it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, SQLModel

from app.store import approvals, migrate, models, superset_links  # noqa: F401  (their tables)
from app.store import undo as _undo_rows  # noqa: F401  (its table is created with the rest)
from app.store.audit_event import ensure_audit_triggers

SQLITE_BUSY_TIMEOUT_MS = 5000
PG_CONNECT_TIMEOUT_S = 5


def _is_memory_sqlite(url: str) -> bool:
    u = make_url(url)
    return u.get_backend_name() == "sqlite" and (u.database in (None, "", ":memory:"))


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for ``url``: SQLite (WAL, busy timeout, usable from any thread) or
    PostgreSQL through psycopg 3 (``postgresql://`` is mapped to ``postgresql+psycopg://``)."""
    u = make_url(url)
    backend = u.get_backend_name()
    if backend == "postgresql" and u.drivername == "postgresql":
        u = u.set(drivername="postgresql+psycopg")
    opts: dict[str, Any] = {"pool_pre_ping": True}
    if backend == "sqlite":
        opts["connect_args"] = {"check_same_thread": False}
        if _is_memory_sqlite(url):
            opts["poolclass"] = StaticPool  # one shared in-memory database
    elif backend == "postgresql":
        opts["connect_args"] = {"connect_timeout": PG_CONNECT_TIMEOUT_S}
    opts.update(kwargs)
    engine = create_engine(u, **opts)
    if backend == "sqlite":
        event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    try:
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")  # durable with WAL, far fewer fsyncs
        cur.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA foreign_keys=ON")
    finally:
        cur.close()


INIT_LOCK_KEY = 0x55_7001  # PostgreSQL advisory lock: replicas initialise one at a time


#: tables defined outside ``models`` (imported above, so ``create_all`` knows them)
OWN_TABLES = (approvals.ApprovalRequest,)


def init_db(engine: Engine) -> None:
    """Create every table and the audit triggers in one transaction. Safe to call again,
    and from several replicas at once (PostgreSQL serialises them with an advisory lock)."""
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": INIT_LOCK_KEY})
        SQLModel.metadata.create_all(conn)
        migrate.ensure_columns(conn)
        ensure_audit_triggers(conn)


class Database:
    """The product's own database: one engine (its tables created when it is opened) and
    its units of work. The composition root opens one per app (``app.parts``); tests open
    their own."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @classmethod
    def open(cls, url: str) -> Database:
        """An engine for ``url`` with every table and trigger in place (a SQLite file's
        folder is created first)."""
        u = make_url(url)
        if u.get_backend_name() == "sqlite" and not _is_memory_sqlite(url) and u.database:
            Path(u.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = make_engine(url)
        init_db(engine)
        return cls(engine)

    @property
    def url(self) -> str:
        """The engine's URL (password masked)."""
        return self.engine.url.render_as_string(hide_password=True)

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session that commits when the block ends and rolls back if it raises."""
        session = Session(self.engine, expire_on_commit=False)
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
        finally:
            session.close()

    def status(self) -> dict[str, Any]:
        """``{"ok": True, "dialect": ...}`` or ``{"ok": False, "dialect": ..., "error": ...}``.

        The error text never carries the password of the URL."""
        url = self.engine.url.render_as_string(hide_password=False)
        dialect = make_url(url).get_backend_name()
        try:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        except (SQLAlchemyError, OSError) as exc:
            return {"ok": False, "dialect": dialect, "error": _safe_error(exc, url)}
        return {"ok": True, "dialect": dialect}

    def dispose(self) -> None:
        """Close the engine's pooled connections."""
        self.engine.dispose()


def _safe_error(exc: BaseException, url: str) -> str:
    orig = getattr(exc, "orig", None) or exc
    msg = (str(orig).strip().splitlines() or [type(orig).__name__])[0]
    password = make_url(url).password
    if password:
        msg = msg.replace(str(password), "***")
    return f"{type(orig).__name__}: {msg}"[:500]
