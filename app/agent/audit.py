"""The seam's audit writer: every decision of the agent lands in the audit log.

An :class:`AuditWriter` (one per app, a part built by the composition root) writes to its
database. ``record()`` stamps the row's time and hands it to the committer at once
(``app.agent.audit_commit.BatchCommitter``: committed right there on the loop when a SQLite file is
free at once, else by the writer's thread, which waits): nothing is held back, so a
decision's row is in the database when ``record`` returns or moments later, and survives
the process being killed right after (replicas read it). ``also(work)`` hands over one of
the app's own statements the same way (a turn's row in the conversation list).
``flush()`` (called before every ``done`` event) waits until this loop's rows are
committed: a finished turn always has all its rows, and a failed write is reported, never
swallowed. One bad row never loses the others.

The on-loop commit is the bench's choice (``bench.agent_bench``): the plain alternative, a
thread committing each row through SQLAlchemy, costs a turn about 2 ms p50 more.

Every row records the door the turn came through (``channel``: page | http | mcp, and the
MCP ``client``). The core passes them explicitly; rows written inside graph nodes (guard,
tools) take them from :func:`audit_scope`, which the graph opens around each node from the
run's context, so a node never has to thread them through.

How a batch is committed: ``app.agent.audit_commit`` (:class:`BatchCommitter`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from app.agent.audit_commit import BatchCommitter, Work
from app.store.db import Database

# (channel, client) of the node running in this task; set only by ``audit_scope``.
_DOOR: ContextVar[tuple[str | None, str | None]] = ContextVar("ss_tools_door", default=(None, None))
# the approval request a second person decided, when that resumed the run (``audit_scope``)
_APPROVAL: ContextVar[str | None] = ContextVar("ss_tools_approval", default=None)


@contextmanager
def audit_scope(
    channel: str | None, client: str | None = None, approval_id: str | None = None
) -> Iterator[None]:
    """Rows audited inside this block (same task) carry ``channel`` and ``client``; with
    ``approval_id``, their ``args`` name it too (an approved call's rows belong to its
    request's story). Use it in plain coroutines only, never across the yields of an async
    generator."""
    token = _DOOR.set((channel, client))
    tagged = _APPROVAL.set(approval_id)
    try:
        yield
    finally:
        _APPROVAL.reset(tagged)
        _DOOR.reset(token)


class AuditWriter:
    """The audit log's one writer: each row handed to its committer when recorded (a
    :class:`BatchCommitter`; :meth:`close` ends its thread)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.committer = BatchCommitter(db)
        self._pending: set[asyncio.Future[None]] = set()

    async def record(self, **fields: Any) -> None:
        """Record one audit row (kind, user, role, conv_id, tool, env, decision, reason,
        args, duration_ms, channel, client), committed now (on the loop) or by the
        writer's thread moments later; see :meth:`flush`. Without an explicit
        ``channel``, the enclosing ``audit_scope``'s."""
        fields.setdefault("ts", datetime.now(UTC))
        if "channel" not in fields:
            fields["channel"], door_client = _DOOR.get()
            fields.setdefault("client", door_client)
        tag, args = _APPROVAL.get(), fields.get("args")
        if tag is not None and (args is None or isinstance(args, dict)):
            fields["args"] = {**(args or {}), "approval_id": tag}
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._pending.add(fut)
        fut.add_done_callback(self._settled)
        self.committer.submit([(fields, loop, fut)])

    def also(self, work: Work) -> asyncio.Future[None]:
        """Run ``work(conn)`` in a transaction of the writer's, after the rows recorded so
        far (the conversation list's row of a turn). The future ends once it is
        committed, or with its error; :meth:`flush` does not wait for it."""
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self.committer.submit([(work, loop, fut)])
        return fut

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
        """End the writer's thread once the rows handed to it are written."""
        self.committer.close()

    def _settled(self, fut: asyncio.Future[None]) -> None:
        """A committed row is done with; a failed one stays until a flush reports it."""
        if fut.cancelled() or fut.exception() is None:
            self._pending.discard(fut)
