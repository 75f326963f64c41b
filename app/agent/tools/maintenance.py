"""Maintenance tools: open and close a maintenance window on an environment.

The windows are rows (``app.store.maintenance``). While one is active the tool seam
refuses every write tool aimed at that environment with reason ``maintenance`` (except
end_maintenance); these tools only write and close the rows.
"""

from __future__ import annotations

import asyncio
from typing import Any

from app.agent.tools.base import ToolDeps, ToolFn
from app.errors import ToolError
from app.store import maintenance as maintenance_store
from app.store.db import session_scope
from app.store.models import Maintenance


def _view(row: Maintenance) -> dict[str, Any]:
    return {
        "env_id": row.env_id,
        "reason": row.reason,
        "started_by": row.started_by,
        "started_at": row.started_at.isoformat(),
        "ends_at": row.ends_at.isoformat() if row.ends_at else None,
        "ended_at": row.ended_at.isoformat() if row.ended_at else None,
        "ended_by": row.ended_by,
    }


async def start_maintenance(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """Put an environment into maintenance: write tools aimed at it are refused until
    the window ends (after ``duration_minutes``, or when end_maintenance is called)."""
    env = deps.env(args.env_id)

    def start() -> dict[str, Any]:
        with session_scope() as session:
            row = maintenance_store.start(
                session,
                env_id=env.id,
                started_by=deps.user_id,
                reason=args.reason or "",
                duration_minutes=args.duration_minutes,
            )
            return _view(row)

    view = await asyncio.to_thread(start)
    until = f"until {view['ends_at']}" if view["ends_at"] else "until end_maintenance"
    return {
        **view,
        "active": True,
        "message": f"'{env.id}' is in maintenance {until}: write tools are refused there.",
    }


async def end_maintenance(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """End the maintenance window of an environment so changes are allowed again."""
    env = deps.env(args.env_id)

    def end() -> dict[str, Any] | None:
        with session_scope() as session:
            row = maintenance_store.end(session, env_id=env.id, ended_by=deps.user_id)
            return None if row is None else _view(row)

    view = await asyncio.to_thread(end)
    if view is None:
        raise ToolError(f"environment '{env.id}' is not in maintenance; there is nothing to end")
    return {**view, "active": False, "message": f"Maintenance on '{env.id}' ended."}


TOOLS: dict[str, ToolFn] = {
    "start_maintenance": start_maintenance,
    "end_maintenance": end_maintenance,
}
