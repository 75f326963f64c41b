"""The seam's audit writer: every decision of the agent lands in the audit log.

An :class:`AuditWriter` (one per app, a part built by the composition root) writes to its
database. ``record()`` stamps the row's time now and holds it in its event loop's batch; the
batch is committed (``app.agent.audit_commit``: on the loop when a SQLite file is free at
once, else by the writer's thread) at the loop's next ``flush()`` or ``HOLD_SECONDS``
after its first row, whichever comes first: a turn's rows travel together, one commit per
turn, not one per row.
``also(work)`` runs one of the app's own statements in the same transaction (a turn's
row in the conversation list: one commit fewer per turn).
``flush()`` (called before every ``done`` event) hands this loop's batch over and waits
until this loop's rows are committed: a finished turn always has all its rows, and a
failed write is reported, never swallowed. One bad row never loses the others.

Every row records the door the turn came through (``channel``: page | http | mcp, and the
MCP ``client``). The core passes them explicitly; rows written inside graph nodes (guard,
tools) take them from :func:`audit_scope`, which the graph opens around each node from the
run's context, so a node never has to thread them through.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from app.agent.audit_commit import MAX_BATCH, BatchCommitter, Item, Work
from app.store.db import Database

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


class AuditWriter:
    """The audit log's one writer: rows held per event loop, committed in batches (its
    :class:`~app.agent.audit_commit.BatchCommitter`; :meth:`close` ends its thread)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.committer = BatchCommitter(db)
        self._pending: set[asyncio.Future[None]] = set()
        # each event loop's rows not yet committed, and the timer that hands them over if
        # no flush comes first
        self._held: dict[asyncio.AbstractEventLoop, list[Item]] = {}
        self._timers: dict[asyncio.AbstractEventLoop, asyncio.TimerHandle] = {}

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
        errors: list[BaseException] = []
        waiting = []
        for fut in [f for f in list(self._pending) if f.get_loop() is loop]:
            if not fut.done():
                waiting.append(fut)
            elif not fut.cancelled() and fut.exception() is not None:
                errors.append(fut.exception())  # type: ignore[arg-type]
        if waiting:  # (committed on the loop: already done, no wait)
            results = await asyncio.gather(*waiting, return_exceptions=True)
            errors += [r for r in results if isinstance(r, BaseException)]
        if errors:
            raise errors[0]

    def commit_now(self) -> None:
        """Hand this loop's batch over now, without waiting (a run whose last row is in:
        its commit overlaps the run's own end; ``flush`` still waits for it)."""
        self._release(asyncio.get_running_loop())

    def close(self) -> None:
        """End the writer's thread once the rows recorded so far (held ones too) are
        written."""
        for loop in list(self._held):
            self._hand_over(loop)
        self.committer.close()

    # ---- a loop's batch ---------------------------------------------------------------
    def _hold(self, item: Item) -> None:
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
        """Commit ``loop``'s batch now (called on that loop)."""
        timer = self._timers.pop(loop, None)
        if timer is not None:
            timer.cancel()
        self._hand_over(loop)

    def _hand_over(self, loop: asyncio.AbstractEventLoop) -> None:
        held = self._held.pop(loop, None)
        if held:
            self.committer.submit(held)
