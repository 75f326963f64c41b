"""Maintenance tools: open and close a maintenance window on an environment.

The windows are rows (``app.store.maintenance``). While one is active the tool seam
refuses every write tool aimed at that environment with reason ``maintenance`` (except
end_maintenance); these tools only write and close the rows. Each is undone by the other:
a window started is ended (if it is still the one open), a window ended is opened again
until its old end (if no other window opened since and its end is still ahead).
(Their specs: ``spec.py``; their view: ``view.py``.)
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from app.errors import ToolError
from app.i18n import t
from app.store import maintenance as maintenance_store
from app.store.models import Maintenance, as_utc, utcnow
from app.tools.args import EnvArgs
from app.tools.kit import Implementations, ToolDeps
from app.tools.maintenance import spec as specs
from app.tools.maintenance import view
from app.tools.maintenance.spec import StartMaintenanceArgs
from app.tools.undo_plan import Inverse, UndoPlan, UndoView

runs = Implementations(specs.family)


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


# ---- undo: the inverse call ----------------------------------------------------------------
END_WINDOW, REOPEN_WINDOW = "end_window", "reopen_window"


def _active(deps: ToolDeps, env_id: str) -> Maintenance | None:
    with deps.db.session() as session:
        return maintenance_store.active_for(session, env_id=env_id)


async def _started_drift(change: UndoView, deps: ToolDeps) -> list[str]:
    """The window the call started is no longer the one open (ended or expired)."""
    row = await asyncio.to_thread(_active, deps, change.env_id or "")
    if row is None or str(row.id) != change.inverse["window_id"]:
        return [t("undo_drift_window_over", deps.lang, env=change.env_id)]
    return []


async def _end_started(change: UndoView, deps: ToolDeps) -> dict[str, Any]:
    return await end_maintenance(EnvArgs(env_id=change.env_id), deps)


def _old_end(change: UndoView) -> datetime | None:
    ends = change.inverse.get("ends_at")
    return as_utc(datetime.fromisoformat(ends)) if ends else None


async def _ended_drift(change: UndoView, deps: ToolDeps) -> list[str]:
    """Another window is open now, or the ended one would have ended by now anyway."""
    words = []
    if await asyncio.to_thread(_active, deps, change.env_id or "") is not None:
        words.append(t("undo_drift_window_open", deps.lang, env=change.env_id))
    ends = _old_end(change)
    if ends is not None and ends <= utcnow():
        words.append(t("undo_drift_window_past", deps.lang, env=change.env_id))
    return words


async def _reopen(change: UndoView, deps: ToolDeps) -> dict[str, Any]:
    env_id = change.env_id or ""

    def start() -> dict[str, Any]:
        with deps.db.session() as session:
            window = Maintenance(
                env_id=env_id, started_by=deps.user_id, reason=change.inverse.get("reason") or "",
                ends_at=_old_end(change),
            )  # fmt: skip
            return window_view(maintenance_store.start(session, window))

    return {**await asyncio.to_thread(start), "active": True}


UNDO_START = Inverse(END_WINDOW, drift=_started_drift, run=_end_started, ends_window=True)
UNDO_END = Inverse(REOPEN_WINDOW, drift=_ended_drift, run=_reopen)


@runs.implements(specs.start_maintenance, view=view.maintenance, inverse=UNDO_START)
async def start_maintenance(args: StartMaintenanceArgs, deps: ToolDeps) -> dict[str, Any]:
    """A new window row (an env already in maintenance is refused by the store)."""
    env = deps.env()

    def start() -> dict[str, Any]:
        with deps.db.session() as session:
            window = Maintenance(env_id=env.id, started_by=deps.user_id, reason=args.reason or "")
            row = maintenance_store.start(session, window, duration_minutes=args.duration_minutes)
            return {**window_view(row), "window_id": str(row.id)}

    view = await asyncio.to_thread(start)
    window_id = view.pop("window_id")
    deps.undo = UndoPlan(END_WINDOW, {"window_id": window_id}, env_id=env.id)
    until = f"until {view['ends_at']}" if view["ends_at"] else "until end_maintenance"
    return {
        **view,
        "active": True,
        "message": f"'{env.id}' is in maintenance {until}: write tools are refused there.",
    }


@runs.implements(specs.end_maintenance, view=view.maintenance, inverse=UNDO_END)
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
    kept = {k: view[k] for k in ("reason", "ends_at", "ended_at")}
    deps.undo = UndoPlan(REOPEN_WINDOW, kept, env_id=env.id)
    return {**view, "active": False, "message": f"Maintenance on '{env.id}' ended."}
