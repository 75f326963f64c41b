"""Maintenance tools: open and close a maintenance window on an environment.

The windows are rows (``app.store.maintenance``). While one is active the tool seam
refuses every write tool aimed at that environment with reason ``maintenance`` (except
end_maintenance); these tools only write and close the rows.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from functools import partial
from typing import Any

from app.agent.tools.base import EnvArgs, Ru, ToolDeps, arg
from app.agent.tools.declare import Family
from app.errors import ToolError
from app.policy import CardLine, Phrase
from app.store import maintenance as maintenance_store
from app.store.models import Maintenance
from app.vocab import Lang

family = Family("maintenance")
#: Both tools write a window's row here (not Superset) and run during a window.
window_tool = partial(family.tool, risk="write", maintenance_exempt=True, open_world=False)


class StartMaintenanceArgs(EnvArgs):
    reason: str = arg(
        "Why: shown to people who hit the window.",
        Ru("Причина", "Зачем окно: это увидят те, кто в него попадёт."),
        default="",
    )
    duration_minutes: int | None = arg(
        "Window length in minutes; omit for open-ended.",
        Ru("Длительность, мин", "Длина окна в минутах; пусто — без срока."),
        default=None,
        ge=1,
        le=10080,
    )


def _window(args: Mapping[str, Any], lang: Lang) -> dict[str, str]:
    minutes, reason = args.get("duration_minutes"), " ".join(str(args.get("reason") or "").split())
    unit = "мин" if lang == "ru" else "min"
    span = (" на " if lang == "ru" else " for ") + f"{minutes} {unit}" if minutes else ""
    return {"span": span, "why": f": {reason[:79]}" if reason else ""}


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


@window_tool(
    can=Phrase("start a maintenance window", "включить режим обслуживания"),
    example=Phrase(
        "Put staging into maintenance for an hour", "Включи режим обслуживания на staging на час"
    ),
    card=CardLine(
        en="Start maintenance on {env}{span}{why}",
        ru="Начать обслуживание {env}{span}{why}",
        values=_window,
    ),
)
async def start_maintenance(args: StartMaintenanceArgs, deps: ToolDeps) -> dict[str, Any]:
    """Opens a maintenance window on an environment: write tools aimed at it are refused
    until it ends (after duration_minutes, or when end_maintenance is called). Use
    before planned work. Needs confirmation. Returns the window's start, end and
    reason."""
    env = deps.env(args.env_id)

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


@window_tool(
    can=Phrase("end a maintenance window", "завершить режим обслуживания"),
    example=Phrase("End maintenance on staging", "Заверши обслуживание на staging"),
    card=CardLine(en="End maintenance on {env}", ru="Завершить обслуживание {env}"),
)
async def end_maintenance(args: EnvArgs, deps: ToolDeps) -> dict[str, Any]:
    """Closes the maintenance window of an environment so changes are allowed again. Use
    when planned work is done. Needs confirmation. Returns the closed window."""
    env = deps.env(args.env_id)

    def end() -> dict[str, Any] | None:
        with deps.db.session() as session:
            row = maintenance_store.end(session, env_id=env.id, ended_by=deps.user_id)
            return None if row is None else window_view(row)

    view = await asyncio.to_thread(end)
    if view is None:
        raise ToolError(f"environment '{env.id}' is not in maintenance; there is nothing to end")
    return {**view, "active": False, "message": f"Maintenance on '{env.id}' ended."}


TOOLS = family.tools
