"""The seam's audit writer: every decision of the agent lands in the audit log.

An :class:`AuditWriter` (one per app, a part built by the composition root) writes to its
database behind the event loop: one thread of its own (a single-thread executor) commits
each row the moment it is recorded, in its own transaction, in the order recorded. The
loop never waits for the database, a row is committed within the time of one short
write (a finished decision survives the process being killed right after), and one bad
row never loses another.

``record()`` stamps the row's time and queues its commit. ``also(work)`` queues one of
the app's own statements the same way (a turn's row in the conversation list). ``flush()``
(called before every ``done``) waits until this loop's rows are committed: a finished
turn always has all its rows, and a failed write is reported there, never swallowed.
Works on SQLite and PostgreSQL alike (the app's ``Database``).

Every row records the door the turn came through (``channel``: page | http | mcp, and the
MCP ``client``). The core passes them explicitly; rows written inside graph nodes (guard,
tools) take them from :func:`audit_scope`, which the graph opens around each node from the
run's context, so a node never has to thread them through.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from functools import partial
from typing import Any

from sqlalchemy import Connection

from app.store.audit import audit_values, insert_audit
from app.store.db import Database

log = logging.getLogger("ss_tools.audit")

# A statement of the app's own, run in a transaction of the writer's (``also``).
Work = Callable[[Connection], object]

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


def _insert_row(fields: dict[str, Any], conn: Connection) -> None:
    insert_audit(conn, [audit_values(**fields)])


class AuditWriter:
    """The audit log's one writer: each row committed at once by the writer's thread
    (:meth:`close` ends it once the queued rows are written; a later row starts it
    again)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self._executor: ThreadPoolExecutor | None = None
        # rows not yet committed, and rows whose commit failed until a flush reports them
        self._pending: set[asyncio.Future[None]] = set()

    async def record(self, **fields: Any) -> None:
        """Record one audit row (kind, user, role, conv_id, tool, env, decision, reason,
        args, duration_ms, channel, client); its commit starts now, on the writer's
        thread (see :meth:`flush`). Without an explicit ``channel``, the enclosing
        ``audit_scope``'s."""
        fields.setdefault("ts", datetime.now(UTC))
        if "channel" not in fields:
            fields["channel"], door_client = _DOOR.get()
            fields.setdefault("client", door_client)
        fut = self._submit(partial(_insert_row, fields))
        self._pending.add(fut)
        fut.add_done_callback(self._settled)

    def also(self, work: Work) -> asyncio.Future[None]:
        """Run ``work(conn)`` in a transaction of the writer's thread, after the rows
        recorded so far (the conversation list's row of a turn). The future ends once it
        is committed, or with its error; :meth:`flush` does not wait for it."""
        return self._submit(work)

    async def flush(self) -> None:
        """Wait for this loop's pending audit writes; a failed write raises here."""
        loop = asyncio.get_running_loop()
        mine = [f for f in list(self._pending) if f.get_loop() is loop]
        if not mine:
            return
        await asyncio.wait(mine)
        self._pending.difference_update(mine)
        for fut in mine:
            if not fut.cancelled() and fut.exception() is not None:
                raise fut.exception()  # type: ignore[misc]

    def close(self) -> None:
        """End the writer's thread once the rows recorded so far are written."""
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)

    # ---- the writer's thread ----------------------------------------------------------
    def _submit(self, work: Work) -> asyncio.Future[None]:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ss-tools-audit")
        return asyncio.get_running_loop().run_in_executor(self._executor, self._commit, work)

    def _commit(self, work: Work) -> None:
        """One transaction of its own (the pool's connection): ``work``, then commit."""
        try:
            with self.db.engine.begin() as conn:
                work(conn)
        except Exception as exc:  # reported by flush (or by the caller of ``also``)
            log.error("audit write failed: %s", type(exc).__name__)
            raise

    def _settled(self, fut: asyncio.Future[None]) -> None:
        """A committed row is done with; a failed one stays until a flush reports it."""
        if fut.cancelled() or fut.exception() is None:
            self._pending.discard(fut)
