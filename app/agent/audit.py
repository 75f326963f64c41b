"""The seam's audit writer: every decision of the agent lands in the audit log.

Audit writes are short synchronous SQL inserts. From async code they run in a worker
thread so the shared event loop never blocks on the database, and they overlap with the
rest of the turn: ``audit()`` stamps the row's time now, starts the write and returns;
``flush_audit()`` (called by the handler before every ``done`` event) waits until this
loop's writes are committed, so a finished turn always has all its rows.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import Any

from app.store.audit import record_audit
from app.store.db import session_scope

log = logging.getLogger("ss_tools.audit")

_PENDING: set[asyncio.Future[None]] = set()


def audit_sync(**fields: Any) -> None:
    with session_scope() as session:
        record_audit(session, **fields)


def _settled(fut: asyncio.Future[None]) -> None:
    _PENDING.discard(fut)
    if not fut.cancelled() and fut.exception() is not None:
        log.error("audit row could not be written: %r", fut.exception())


async def audit(**fields: Any) -> None:
    """Record one audit row (kind, user, role, conv_id, tool, env, decision, reason, args,
    duration_ms). The write completes in the background; see ``flush_audit``."""
    fields.setdefault("ts", datetime.now(UTC))
    fut = asyncio.ensure_future(asyncio.to_thread(audit_sync, **fields))
    _PENDING.add(fut)
    fut.add_done_callback(_settled)


async def flush_audit() -> None:
    """Wait for this loop's pending audit writes; a failed write raises here."""
    loop = asyncio.get_running_loop()
    mine = [f for f in list(_PENDING) if f.get_loop() is loop]
    if mine:
        results = await asyncio.gather(*mine, return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            raise errors[0]
