"""A short write on the calling thread, for a SQLite file (:class:`LoopWriter`).

With WAL and ``synchronous=NORMAL`` a SQLite commit is an append to the WAL, with no fsync:
a turn's few audit rows take a fraction of a millisecond to commit, less than handing them
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
from collections.abc import Callable

from sqlalchemy import Connection, Engine

log = logging.getLogger("ss_tools.store")

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
