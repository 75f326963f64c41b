"""Dedicated PostgreSQL connections for the replicas' coordination (run locks, stop
signals), outside the SQLAlchemy pool and the checkpointer's pool: a session-level
advisory lock and a ``LISTEN`` belong to one server session, so they need a connection
that no pool hands to anyone else.

``await connect(url, purpose=...)``: a psycopg ``AsyncConnection`` in autocommit mode,
named ``ss-tools <purpose>`` in ``pg_stat_activity`` (an operator sees which backends
hold the replicas' locks). It is bound to the event loop that opened it.
"""

from __future__ import annotations

import psycopg
from sqlalchemy.engine import make_url

from app.errors import CoordinationError

CONNECT_TIMEOUT_S = 5
#: What a dead or unreachable server raises on a connection (a terminated backend is an
#: ``AdminShutdown``, itself an ``OperationalError``; a closed connection raises one too).
LINK_ERRORS: tuple[type[Exception], ...] = (psycopg.OperationalError, psycopg.InterfaceError)


def is_postgres(url: str) -> bool:
    """Is ``url`` (a SQLAlchemy URL) a PostgreSQL database?"""
    return make_url(url).get_backend_name() == "postgresql"


def libpq_url(url: str) -> str:
    """A SQLAlchemy URL (``postgresql+psycopg://…``) as libpq takes it (``postgresql://…``),
    query options (``sslmode``…) kept."""
    u = make_url(url)
    if u.get_backend_name() != "postgresql":
        raise CoordinationError(f"not a PostgreSQL URL: {u.get_backend_name()}")
    return u.set(drivername="postgresql").render_as_string(hide_password=False)


async def connect(url: str, *, purpose: str) -> psycopg.AsyncConnection[tuple[object, ...]]:
    """A new autocommit connection to ``url`` for ``purpose``; :class:`CoordinationError`
    (without the password) when the server cannot be reached."""
    try:
        return await psycopg.AsyncConnection.connect(
            libpq_url(url),
            autocommit=True,
            application_name=f"ss-tools {purpose}"[:63],
            connect_timeout=CONNECT_TIMEOUT_S,
        )
    except LINK_ERRORS as exc:
        raise CoordinationError(
            f"PostgreSQL unreachable for {purpose}: {_first_line(exc)}"
        ) from exc


def _first_line(exc: BaseException) -> str:
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    return f"{type(exc).__name__}: {text}"[:300]
