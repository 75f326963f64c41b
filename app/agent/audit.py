"""The seam's audit writer: every decision of the agent lands in the audit log.

An :class:`AuditWriter` (one per app, a part built by the composition root) writes to its
database. ``record()`` stamps the row's time now and holds it in its event loop's batch; the
batch goes to the writer's thread at the loop's next ``flush()`` or ``HOLD_SECONDS``
after its first row, whichever comes first (a turn's rows travel together: one thread
wake-up and one commit per turn, not one per row). The thread drains its queue and
inserts everything waiting in one transaction and one statement (no ORM objects, on a
connection of its own kept open between batches), so the shared event loop never blocks
on the database.
``also(work)`` runs one of the app's own statements in the same transaction (a turn's
row in the conversation list: one commit fewer per turn).
``flush()`` (called before every ``done`` event) hands this loop's batch over and waits
until this loop's rows are committed: a finished turn always has all its rows, and a
failed write is reported, never swallowed. If a batch cannot be committed,
its rows are written one by one (and the reasoning log says so), so one bad row never
loses the others.

Every row records the door the turn came through (``channel``: page | http | mcp, and the
MCP ``client``). The core passes them explicitly; rows written inside graph nodes (guard,
tools) take them from :func:`audit_scope`, which the graph opens around each node from the
run's context, so a node never has to thread them through.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Connection

from app.reasoning import cot_logger
from app.store.audit import audit_values, insert_audit
from app.store.db import Database

log = logging.getLogger("ss_tools.audit")

# What the writer thread commits: an audit row's fields, or a statement of the app's own
# (``also``) that rides in the same transaction.
Work = Callable[[Connection], object]
_Item = tuple[dict[str, Any] | Work, asyncio.AbstractEventLoop, "asyncio.Future[None]"]

_STOP = None  # the writer thread's last item (close)
MAX_BATCH = 500
# How long a loop's first held row waits for the rest of its batch before it is handed to
# the writer anyway (a turn that runs long: a slow model, a long tool).
HOLD_SECONDS = 0.05
# (channel, client) of the node running in this task; set only by ``audit_scope``.
_DOOR: ContextVar[tuple[str | None, str | None]] = ContextVar("ss_tools_door", default=(None, None))


@contextmanager
def audit_scope(channel: str | None, client: str | None = None) -> Iterator[None]:
    """Rows audited inside this block (same task) carry ``channel`` and ``client``.
    Use it in plain coroutines only, never across the yields of an async generator."""
    token = _DOOR.set((channel, client))
    try:
        yield
    finally:
        _DOOR.reset(token)


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


def _settle(item: _Item, error: BaseException | None) -> None:
    _, loop, fut = item
    try:
        loop.call_soon_threadsafe(_resolve, fut, error)
    except RuntimeError:  # that loop is closed: nobody is waiting any more
        log.debug("audit row settled after its event loop closed")


class AuditWriter:
    """The audit log's one writer: rows queued from any event loop, committed in batches
    by one thread of its own (started on the first row, ended by :meth:`close`)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._queue: queue.SimpleQueue[list[_Item] | None] = queue.SimpleQueue()
        self._pending: set[asyncio.Future[None]] = set()
        # each event loop's rows not yet handed to the thread, and the timer that hands
        # them over if no flush comes first
        self._held: dict[asyncio.AbstractEventLoop, list[_Item]] = {}
        self._timers: dict[asyncio.AbstractEventLoop, asyncio.TimerHandle] = {}
        self._thread: threading.Thread | None = None
        self._conn: Connection | None = None  # the writer thread's own, opened on first use
        self._lock = threading.Lock()

    async def record(self, **fields: Any) -> None:
        """Record one audit row (kind, user, role, conv_id, tool, env, decision, reason,
        args, duration_ms, channel, client). The write completes in the background; see
        :meth:`flush`. Without an explicit ``channel``, the enclosing ``audit_scope``'s."""
        fields.setdefault("ts", datetime.now(UTC))
        if "channel" not in fields:
            fields["channel"], door_client = _DOOR.get()
            fields.setdefault("client", door_client)
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._pending.add(fut)
        fut.add_done_callback(self._pending.discard)
        self._hold((fields, loop, fut))

    def also(self, work: Work) -> asyncio.Future[None]:
        """Run ``work(conn)`` in the writer's next transaction, beside the audit rows
        waiting (one commit for both; the conversation list's row of a turn). The future
        ends once it is committed (it travels with the loop's next batch), or with its
        error; :meth:`flush` hands it over but does not wait for it."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._hold((work, loop, fut))
        return fut

    async def flush(self) -> None:
        """Wait for this loop's pending audit writes; a failed write raises here."""
        loop = asyncio.get_running_loop()
        self._release(loop)
        mine = [f for f in list(self._pending) if f.get_loop() is loop]
        if mine:
            results = await asyncio.gather(*mine, return_exceptions=True)
            errors = [r for r in results if isinstance(r, BaseException)]
            if errors:
                raise errors[0]

    def close(self) -> None:
        """End the writer thread once the rows recorded so far (held ones too) are written."""
        for loop in list(self._held):
            self._hand_over(loop)
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is not None and thread.is_alive():
            self._queue.put(_STOP)
            thread.join(timeout=10)

    # ---- a loop's batch ---------------------------------------------------------------
    def _hold(self, item: _Item) -> None:
        """Keep ``item`` in its loop's batch; the first one starts the batch's timer."""
        loop = item[1]
        held = self._held.get(loop)
        if held is None:
            held = self._held[loop] = []
            self._timers[loop] = loop.call_later(HOLD_SECONDS, self._release, loop)
        held.append(item)
        if len(held) >= MAX_BATCH:
            self._release(loop)

    def _release(self, loop: asyncio.AbstractEventLoop) -> None:
        """Hand ``loop``'s batch to the writer thread now (on that loop)."""
        timer = self._timers.pop(loop, None)
        if timer is not None:
            timer.cancel()
        self._hand_over(loop)

    def _hand_over(self, loop: asyncio.AbstractEventLoop) -> None:
        held = self._held.pop(loop, None)
        if held:
            self._ensure_thread()
            self._queue.put(held)

    # ---- the writer thread ------------------------------------------------------------
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
            batch = list(first)
            stop = False
            while len(batch) < MAX_BATCH:
                try:
                    group = self._queue.get_nowait()
                except queue.Empty:
                    break
                if group is _STOP:
                    stop = True
                    break
                batch.extend(group)
            self._write_batch(batch)
            if stop:
                self._close_connection()
                return

    def _commit(self, items: list[dict[str, Any] | Work]) -> None:
        """One transaction on the thread's own connection: one INSERT for the rows
        (values made by ``audit_values``), then the other work queued with them. A
        connection that failed is closed, and the next transaction opens a new one."""
        values = [audit_values(**item) for item in items if isinstance(item, dict)]
        if self._conn is None:  # kept open between batches: no pool checkout and ping
            self._conn = self.db.engine.connect()
        conn = self._conn
        try:
            with conn.begin():
                insert_audit(conn, values)
                for item in items:
                    if not isinstance(item, dict):
                        item(conn)
        except Exception:
            self._close_connection()
            raise

    def _close_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except Exception as exc:  # a broken connection may fail to close; it is dropped
                log.debug("audit connection close failed: %s", type(exc).__name__)

    def _write_batch(self, batch: list[_Item]) -> None:
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
