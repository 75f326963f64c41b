"""How a batch of audit rows is committed (:class:`BatchCommitter`, the committer of
``app.agent.audit.AuditWriter``): it takes one event loop's batch
(:meth:`~BatchCommitter.submit`). On a SQLite file it commits the batch right there, on
the loop, when the database is free at once (:class:`~app.store.loop_writer.LoopWriter`:
a WAL append, no fsync, never a wait for a lock), and every ``CHECKPOINT_EVERY`` such
commits its thread copies the WAL into the database.
Otherwise (PostgreSQL, an in-memory SQLite, a busy database, a batch that failed there)
the batch goes to its thread, which drains its queue and inserts everything waiting in one
transaction and one statement (no ORM objects, on a connection of its own kept open
between batches): the loop never waits for the database. If a batch cannot be committed
there, its rows are written one by one (and the reasoning log says so), so one bad row
never loses the others. Each row's future ends when the row is committed, or with its
error.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable
from functools import partial
from typing import Any

from sqlalchemy import Connection

from app.reasoning import cot_logger
from app.store.audit_log import audit_values, insert_audit
from app.store.db import Database
from app.store.loop_writer import CHECKPOINT_EVERY, LoopWriter, checkpoint, close_quietly

log = logging.getLogger("ss_tools.audit")

# What is committed: an audit row's fields, or a statement of the app's own (``also``)
# that rides in the same transaction; with the loop that waits for it, and its future.
Work = Callable[[Connection], object]
Item = tuple[dict[str, Any] | Work, asyncio.AbstractEventLoop, "asyncio.Future[None]"]

_STOP = None  # the thread's last item (close)
_CHECKPOINT = "checkpoint"  # the thread copies the WAL into the database (SQLite)
MAX_BATCH = 500  # rows in one transaction at most


def _resolve(fut: asyncio.Future[None], error: BaseException | None) -> None:
    if fut.done():
        return
    if error is None:
        fut.set_result(None)
    else:
        fut.set_exception(error)


def _resolve_all(futs: list[asyncio.Future[None]]) -> None:
    for fut in futs:
        _resolve(fut, None)


def _settle(item: Item, error: BaseException | None) -> None:
    _, loop, fut = item
    try:
        loop.call_soon_threadsafe(_resolve, fut, error)
    except RuntimeError:  # that loop is closed: nobody is waiting any more
        log.debug("audit row settled after its event loop closed")


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _write(items: list[dict[str, Any] | Work], conn: Connection) -> None:
    """A batch's statements (the caller's transaction): one INSERT for the rows (values
    made by ``audit_values``), then the other work queued with them."""
    insert_audit(conn, [audit_values(**item) for item in items if isinstance(item, dict)])
    for item in items:
        if not isinstance(item, dict):
            item(conn)


class BatchCommitter:
    """Commits batches of audit rows: on the calling loop when it can at once, else by a
    thread of its own (started when first needed, ended by :meth:`close`)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._fast = LoopWriter.for_engine(db.engine)  # None: every batch goes to the thread
        self._queue: queue.SimpleQueue[list[Item] | str | None] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._conn: Connection | None = None  # the thread's own, opened on first use
        self._lock = threading.Lock()

    def submit(self, batch: list[Item]) -> None:
        """Commit ``batch`` here if the database is free at once (its futures end now),
        else queue it for the thread (which waits for the database)."""
        fast = self._fast
        if fast is not None and fast.run(partial(_write, [item[0] for item in batch])):
            here = _running_loop()
            for item in batch:
                if item[1] is here:
                    _resolve(item[2], None)
                else:
                    _settle(item, None)
            if fast.commits % CHECKPOINT_EVERY == 0:
                self._put(_CHECKPOINT)
            return
        self._put(batch)

    def close(self) -> None:
        """End the thread once the batches queued so far are written."""
        if self._fast is not None:
            self._fast.close()
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None and thread.is_alive():
            self._queue.put(_STOP)
            thread.join(timeout=10)

    # ---- the thread -------------------------------------------------------------------
    def _put(self, item: list[Item] | str) -> None:
        self._ensure_thread()
        self._queue.put(item)

    def _ensure_thread(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(
                    target=self._run, name="ss-tools-audit", daemon=True
                )
                self._thread.start()

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is _STOP:
                self._close_connection()
                return
            if isinstance(first, str):  # _CHECKPOINT
                self._checkpoint()
                continue
            batch = list(first)
            stop = wal = False
            while len(batch) < MAX_BATCH:
                try:
                    group = self._queue.get_nowait()
                except queue.Empty:
                    break
                if group is _STOP:
                    stop = True
                    break
                if isinstance(group, str):  # _CHECKPOINT, once this batch is written
                    wal = True
                    continue
                batch.extend(group)
            self._write_batch(batch)
            if wal:
                self._checkpoint()
            if stop:
                self._close_connection()
                return

    def _commit(self, items: list[dict[str, Any] | Work]) -> None:
        """One transaction on the thread's own connection: one INSERT for the rows
        (values made by ``audit_values``), then the other work queued with them. A
        connection that failed is closed, and the next transaction opens a new one."""
        conn = self._connection()
        try:
            with conn.begin():
                _write(items, conn)
        except Exception:
            self._close_connection()
            raise

    def _checkpoint(self) -> None:
        """The WAL copied into the database, off the loop (the loop's writer never does)."""
        try:
            checkpoint(self._connection())
        except Exception as exc:  # the WAL stays longer; the next checkpoint tries again
            log.warning("audit WAL checkpoint failed: %s", type(exc).__name__)
            self._close_connection()

    def _connection(self) -> Connection:
        """The thread's own connection, kept open between batches (no pool checkout and
        ping per batch); opened again after a failure closed it."""
        if self._conn is None:
            self._conn = self.db.engine.connect()
        return self._conn

    def _close_connection(self) -> None:
        conn, self._conn = self._conn, None
        close_quietly(conn, "audit")

    def _write_batch(self, batch: list[Item]) -> None:
        """One transaction for the batch; if it fails, each row in its own transaction, so
        one bad row never loses the others (said in the reasoning log)."""
        try:
            self._commit([fields for fields, _, _ in batch])
        except Exception as exc:  # retried row by row below; a row that fails again is reported
            if len(batch) == 1:
                log.error("audit row could not be written: %s", type(exc).__name__)
                _settle(batch[0], exc)
                return
            cot_logger.explore(
                "audit batch failed; writing its rows one by one",
                rows=len(batch),
                error=type(exc).__name__,
            )
            failed = 0
            for item in batch:
                try:
                    self._commit([item[0]])
                except Exception as row_exc:  # only this row's waiter hears of it
                    failed += 1
                    log.error("audit row could not be written: %s", type(row_exc).__name__)
                    _settle(item, row_exc)
                else:
                    _settle(item, None)
            cot_logger.reflect("audit batch written row by row", rows=len(batch), failed=failed)
            return
        by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Future[None]]] = {}
        for _, loop, fut in batch:
            by_loop.setdefault(loop, []).append(fut)
        for loop, futs in by_loop.items():  # one wake-up of each waiting loop per batch
            try:
                loop.call_soon_threadsafe(_resolve_all, futs)
            except RuntimeError:  # that loop is closed: nobody is waiting any more
                log.debug("audit rows settled after their event loop closed")
