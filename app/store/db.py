"""Engines and sessions for the product's own tables (SQLite by default, PostgreSQL optional).

``get_engine()`` builds one engine from ``get_settings().db_url`` and creates the tables on
first use; ``reset_engine()`` forgets it (tests change the URL, then call it).
``session_scope()`` is the unit of work: it commits on success and rolls back on error.
Objects stay readable after the scope (``expire_on_commit=False``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.pool import StaticPool
from sqlmodel import Session, SQLModel

from app.settings import get_settings
from app.store import confirmations

SQLITE_BUSY_TIMEOUT_MS = 5000
PG_CONNECT_TIMEOUT_S = 5

_lock = threading.Lock()
_engine: Engine | None = None
_engine_source_url: str | None = None


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


def init_db(engine: Engine) -> None:
    """Create every table and the audit triggers in one transaction. Safe to call again,
    and from several replicas at once (PostgreSQL serialises them with an advisory lock)."""
    from app.store import models

    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": INIT_LOCK_KEY})
        SQLModel.metadata.create_all(conn)
        models.ensure_audit_columns(conn)
        confirmations.ensure_columns(conn)
        models.ensure_audit_triggers(conn)


def get_engine() -> Engine:
    """The process-wide engine for the configured database (tables created on first use)."""
    global _engine, _engine_source_url
    if _engine is not None:
        return _engine
    with _lock:
        if _engine is None:
            settings = get_settings()
            if settings.db_url.startswith("sqlite") and not _is_memory_sqlite(settings.db_url):
                settings.data_dir.mkdir(parents=True, exist_ok=True)
            engine = make_engine(settings.db_url)
            init_db(engine)
            _engine, _engine_source_url = engine, settings.db_url
    return _engine


def current_engine_url() -> str | None:
    """The settings URL the cached engine was built from, or None (tests compare it with
    the settings to know whether the engine is stale)."""
    return _engine_source_url if _engine is not None else None


def reset_engine() -> None:
    """Dispose of the cached engine and forget it."""
    global _engine, _engine_source_url
    with _lock:
        if _engine is not None:
            _engine.dispose()
        _engine, _engine_source_url = None, None


@contextmanager
def session_scope(engine: Engine | None = None) -> Iterator[Session]:
    """A session that commits when the block ends and rolls back if it raises."""
    session = Session(engine or get_engine(), expire_on_commit=False)
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def _safe_error(exc: BaseException, url: str) -> str:
    orig = getattr(exc, "orig", None) or exc
    msg = (str(orig).strip().splitlines() or [type(orig).__name__])[0]
    password = make_url(url).password
    if password:
        msg = msg.replace(str(password), "***")
    return f"{type(orig).__name__}: {msg}"[:500]


def db_status(engine: Engine | None = None) -> dict[str, Any]:
    """``{"ok": True, "dialect": ...}`` or ``{"ok": False, "dialect": ..., "error": ...}``.

    The error text never carries the password of the URL."""
    url = get_settings().db_url if engine is None else engine.url.render_as_string(False)
    dialect = make_url(url).get_backend_name()
    try:
        eng = engine or get_engine()
        with eng.connect() as conn:
            conn.execute(text("SELECT 1"))
    except (SQLAlchemyError, OSError) as exc:
        return {"ok": False, "dialect": dialect, "error": _safe_error(exc, url)}
    return {"ok": True, "dialect": dialect}
