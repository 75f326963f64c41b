"""Meta tools: what may I do here, which environments exist, how is my task doing."""

from __future__ import annotations

import asyncio
from typing import Any

from app.agent.tools.base import ToolDeps, ToolFn
from app.errors import NoEnvironmentError, ToolError

HEALTH_TIMEOUT_S = 3.0


def _first_sentence(text: str, limit: int = 140) -> str:
    """The first sentence of an LLM-facing description: enough for a capabilities list."""
    first = " ".join(text.split()).split(". ")[0].rstrip(".")
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


async def show_capabilities(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """List the tools this user may run in the current page context, grouped by family,
    each with a one-line description. Needs no Superset."""
    from app.policy import TOOL_CATALOG, build_tool_pipeline

    result = build_tool_pipeline(list(TOOL_CATALOG.values()), deps.role, deps.object_type)
    groups: dict[str, list[dict[str, str]]] = {}
    for spec in result.tools:
        line = _first_sentence(spec.description or "")
        groups.setdefault(spec.family, []).append(
            {"name": spec.name, "risk": spec.risk, "description": line}
        )
    return {
        "role": deps.role,
        "context": deps.object_type,
        "count": len(result.tools),
        "groups": groups,
        "excluded": [{"name": e.name, "reason": e.reason} for e in result.excluded],
    }


def _maintenance_rows(env_ids: list[str]) -> dict[str, dict[str, Any] | None]:
    from app.store.db import session_scope
    from app.store.maintenance import active_for

    out: dict[str, dict[str, Any] | None] = {}
    with session_scope() as session:
        for env_id in env_ids:
            row = active_for(session, env_id=env_id)
            out[env_id] = (
                None
                if row is None
                else {
                    "reason": row.reason,
                    "started_by": row.started_by,
                    "started_at": row.started_at.isoformat(),
                    "ends_at": row.ends_at.isoformat() if row.ends_at else None,
                }
            )
    return out


async def list_environments(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """List the configured Superset environments: id, name, tier (dev/staging/prod),
    whether each is reachable now, whether it is in maintenance, and any config error."""
    rows = deps.registry.describe()
    if not rows:
        return {"environments": [], "selected": None, "note": "no Superset environment configured"}

    async def reachable(row: dict[str, Any]) -> bool | None:
        if row["error"]:
            return None
        return await deps.registry.client(row["id"]).health(timeout=HEALTH_TIMEOUT_S)

    reach = await asyncio.gather(*(reachable(r) for r in rows))
    maintenance = await asyncio.to_thread(_maintenance_rows, [r["id"] for r in rows])
    try:
        selected: str | None = deps.registry.resolve(None, deps.env_id).id
    except NoEnvironmentError:
        selected = None  # the page selected an env id that is not configured
    envs = []
    for row, ok in zip(rows, reach, strict=True):
        maint = maintenance.get(row["id"])
        envs.append(
            row
            | {
                "reachable": ok,
                "in_maintenance": maint is not None,
                "maintenance": maint,
            }
        )
    return {"environments": envs, "selected": selected}


def _load_tasks(
    task_id: str | None, user: str, is_admin: bool
) -> list[dict[str, Any]] | dict[str, Any] | None:
    from app.store.db import session_scope
    from app.store.tasks import get_task, list_tasks
    from app.tasks.worker import task_view

    with session_scope() as session:
        if task_id:
            task = get_task(session, task_id=task_id)
            if task is None or (task.user not in (None, user) and not is_admin):
                return None  # another user's task is not shown to analysts
            return task_view(task)
        return [task_view(t) for t in list_tasks(session, user=user, limit=10)]


async def get_task_status(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """Status of a long-running task (migration, backup, restore): status, step i of n,
    message, result or error. Without `task_id`, lists this user's recent tasks."""
    found = await asyncio.to_thread(_load_tasks, args.task_id, deps.user_id, deps.role == "admin")
    if args.task_id:
        if found is None:
            raise ToolError(f"no task with id {args.task_id!r}")
        return {"task": found}
    return {"tasks": found, "count": len(found or [])}


TOOLS: dict[str, ToolFn] = {
    "show_capabilities": show_capabilities,
    "list_environments": list_environments,
    "get_task_status": get_task_status,
}
