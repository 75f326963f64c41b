"""The one choice of backend for coordinating runs across replicas: PostgreSQL's
advisory locks and ``LISTEN/NOTIFY`` when several replicas share a PostgreSQL database,
the in-process no-ops on SQLite (one process).

The kinds sit below this module, each in its own: the seams, their shared types and the
SQLite kind in :mod:`app.store.run_locks` / :mod:`app.store.run_signals`; the PostgreSQL
kind, built on those, in :mod:`app.store.run_locks_pg` / :mod:`app.store.run_signals_pg`.
Only this module names both, so neither kind imports the other.
"""

from __future__ import annotations

from typing import Any

from app.store.db import Database
from app.store.pg_link import is_postgres
from app.store.run_locks import LocalRunLocks, RunLocks
from app.store.run_locks_pg import PgRunLocks
from app.store.run_signals import LocalRunSignals, RunSignals
from app.store.run_signals_pg import PgRunSignals


def _url(db: Database | str) -> str:
    return db if isinstance(db, str) else db.engine.url.render_as_string(hide_password=False)


def run_locks_for(db: Database | str, **options: Any) -> RunLocks:
    """The run locks for the app's database (a ``Database`` or its URL, password
    included): :class:`~app.store.run_locks_pg.PgRunLocks` on PostgreSQL, else
    :class:`~app.store.run_locks.LocalRunLocks`."""
    url = _url(db)
    return PgRunLocks(url, **options) if is_postgres(url) else LocalRunLocks()


def run_signals_for(db: Database, **options: Any) -> RunSignals:
    """The stop signals for the app's database:
    :class:`~app.store.run_signals_pg.PgRunSignals` on PostgreSQL, else
    :class:`~app.store.run_signals.LocalRunSignals`."""
    return PgRunSignals(db, **options) if is_postgres(_url(db)) else LocalRunSignals()
