"""Maintenance tools: open and close a maintenance window on an environment.

The windows are rows (``app.store.maintenance``). While one is active the tool seam
refuses every write tool aimed at that environment with reason ``maintenance`` (except
end_maintenance); these tools only write and close the rows.
(Their specs: ``app/policy/tools/maintenance.py``.)
"""

from __future__ import annotations

import asyncio
from typing import Any

from app.agent.tools.base import Family, ToolDeps
from app.errors import ToolError
from app.policy.tools import maintenance as specs
from app.policy.tools.base import EnvArgs
from app.policy.tools.maintenance import StartMaintenanceArgs
from app.store import maintenance as maintenance_store
from app.store.models import Maintenance

family = Family(specs.family)


def window_view(row: Maintenance) -> dict[str, Any]:
    return {
        "env_id": row.env_id,
        "reason": row.reason,
        "started_by": row.started_by,
        "started_at": row.started_at.isoformat(),
        "ends_at": row.ends_at.isoformat() if row.ends_at else None,
        "ended_at": row.ended_at.isoformat() if row.ended_at else None,
        "ended_by": row.ended_by,
    }


@family.implements(specs.start_maintenance)
async def start_maintenance(args: StartMaintenanceArgs, deps: ToolDeps) -> dict[str, Any]:
    """A new window row (an env already in maintenance is refused by the store)."""
    env = deps.env()

    def start() -> dict[str, Any]:
        with deps.db.session() as session:
            window = Maintenance(env_id=env.id, started_by=deps.user_id, reason=args.reason or "")
            row = maintenance_store.start(session, window, duration_minutes=args.duration_minutes)
            return window_view(row)

    view = await asyncio.to_thread(start)
    until = f"until {view['ends_at']}" if view["ends_at"] else "until end_maintenance"
    return {
        **view,
        "active": True,
        "message": f"'{env.id}' is in maintenance {until}: write tools are refused there.",
    }


@family.implements(specs.end_maintenance)
async def end_maintenance(args: EnvArgs, deps: ToolDeps) -> dict[str, Any]:
    """Closes the env's active window row; none active is a tool error."""
    env = deps.env()

    def end() -> dict[str, Any] | None:
        with deps.db.session() as session:
            row = maintenance_store.end(session, env_id=env.id, ended_by=deps.user_id)
            return None if row is None else window_view(row)

    view = await asyncio.to_thread(end)
    if view is None:
        raise ToolError(f"environment '{env.id}' is not in maintenance; there is nothing to end")
    return {**view, "active": False, "message": f"Maintenance on '{env.id}' ended."}


TOOLS = family.tools
