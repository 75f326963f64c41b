"""The seam's audit writer: every decision of the agent lands in the audit log.

``audit()`` stamps the row's time now and hands it to one writer thread, which drains its
queue and inserts everything waiting in a single transaction (one commit for many rows
under load), so the shared event loop never blocks on the database and a turn's own work
overlaps with its audit writes. ``flush_audit()`` (called by the handler before every
``done`` event) waits until this loop's rows are committed: a finished turn always has
all its rows, and a failed write is reported, never swallowed. If a batch cannot be
committed, its rows are written one by one (and the reasoning log says so), so one bad row
never loses the others.

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
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Any

from app.store.audit import record_audit
from app.store.cot import cot_logger
from app.store.db import session_scope

log = logging.getLogger("ss_tools.audit")

_Item = tuple[dict[str, Any], asyncio.AbstractEventLoop, "asyncio.Future[None]"]

_PENDING: set[asyncio.Future[None]] = set()
_QUEUE: queue.SimpleQueue[_Item] = queue.SimpleQueue()
_WRITER: threading.Thread | None = None
_WRITER_LOCK = threading.Lock()
MAX_BATCH = 500
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


def _commit(rows: list[dict[str, Any]]) -> None:
    with session_scope() as session:
        for fields in rows:
            record_audit(session, flush=False, **fields)


def _settle(item: _Item, error: BaseException | None) -> None:
    _, loop, fut = item
    try:
        loop.call_soon_threadsafe(_resolve, fut, error)
    except RuntimeError:  # that loop is closed: nobody is waiting any more
        log.debug("audit row settled after its event loop closed")


def _write_batch(batch: list[_Item]) -> None:
    """One transaction for the batch; if it fails, each row in its own transaction, so
    one bad row never loses the others (said in the reasoning log)."""
    try:
        _commit([fields for fields, _, _ in batch])
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
                _commit([item[0]])
            except Exception as row_exc:  # only this row's waiter hears of it
                failed += 1
                log.error("audit row could not be written: %s", type(row_exc).__name__)
                _settle(item, row_exc)
            else:
                _settle(item, None)
        cot_logger.reflect("audit batch written row by row", rows=len(batch), failed=failed)
        return
    for item in batch:
        _settle(item, None)


def _writer() -> None:
    while True:
        batch = [_QUEUE.get()]
        while len(batch) < MAX_BATCH:
            try:
                batch.append(_QUEUE.get_nowait())
            except queue.Empty:
                break
        _write_batch(batch)


def _ensure_writer() -> None:
    global _WRITER
    if _WRITER is not None and _WRITER.is_alive():
        return
    with _WRITER_LOCK:
        if _WRITER is None or not _WRITER.is_alive():
            _WRITER = threading.Thread(target=_writer, name="ss-tools-audit", daemon=True)
            _WRITER.start()


def _settled(fut: asyncio.Future[None]) -> None:
    _PENDING.discard(fut)


async def audit(**fields: Any) -> None:
    """Record one audit row (kind, user, role, conv_id, tool, env, decision, reason, args,
    duration_ms, channel, client). The write completes in the background; see
    ``flush_audit``. Without an explicit ``channel``, the enclosing ``audit_scope``'s."""
    fields.setdefault("ts", datetime.now(UTC))
    if "channel" not in fields:
        fields["channel"], door_client = _DOOR.get()
        fields.setdefault("client", door_client)
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[None] = loop.create_future()
    _PENDING.add(fut)
    fut.add_done_callback(_settled)
    _ensure_writer()
    _QUEUE.put((fields, loop, fut))


async def flush_audit() -> None:
    """Wait for this loop's pending audit writes; a failed write raises here."""
    loop = asyncio.get_running_loop()
    mine = [f for f in list(_PENDING) if f.get_loop() is loop]
    if mine:
        results = await asyncio.gather(*mine, return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            raise errors[0]
