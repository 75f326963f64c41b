"""The seam's audit writer: every decision of the agent lands in the audit log.

Audit writes are short synchronous SQL inserts; from async code they run in a worker
thread so the shared event loop never blocks on the database.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from app.store.audit import record_audit
from app.store.db import session_scope

log = logging.getLogger("ss_tools.audit")


def audit_sync(**fields: Any) -> None:
    with session_scope() as session:
        record_audit(session, **fields)


async def audit(**fields: Any) -> None:
    """Write one audit row (kind, user, role, conv_id, tool, env, decision, reason, args...)."""
    await asyncio.to_thread(audit_sync, **fields)
