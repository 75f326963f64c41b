"""Meta tools: what may I do here, which environments exist, how is my task doing."""

from __future__ import annotations

import asyncio
from typing import Any

from app.agent.tools.base import NoArgs, Ru, ToolArgs, ToolDeps, arg
from app.agent.tools.declare import Family, capitalised
from app.agent.tools.maintenance import window_view
from app.errors import ToolError
from app.policy import CardLine, EnvTable, Phrase, build_tool_pipeline
from app.store.db import Database
from app.store.maintenance import active_for
from app.store.tasks import get_task, list_tasks
from app.tasks.worker import task_view

HEALTH_TIMEOUT_S = 3.0

family = Family("meta")


class TaskStatusArgs(ToolArgs):
    task_id: str | None = arg(
        "Task id to look up; omit to list the most recent tasks.",
        Ru("Задача", "Id задачи; пусто — список последних задач."),
        default=None,
    )


def _first_sentence(text: str, limit: int = 140) -> str:
    """The first sentence of an LLM-facing description: enough for a capabilities list."""
    first = " ".join(text.split()).split(". ")[0].rstrip(".")
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


@family.tool(
    risk="read",
    can=Phrase("explain what I can do", "рассказать, что я умею"),
    example=Phrase("What can you do for me here?", "Что ты умеешь здесь?"),
    card=CardLine(en="Show what I can do here", ru="Показать, что я могу здесь сделать"),
    open_world=False,
)
async def show_capabilities(args: NoArgs, deps: ToolDeps) -> dict[str, Any]:
    """Lists what you (the agent) can do for this user on this page: the tools available
    to their role and context, grouped by purpose. Use when the user asks what you can
    do or is unsure how to start. Returns a short list of capabilities."""
    if deps.policy is None:
        raise ToolError("show_capabilities needs the policy in force (none was given)")
    catalog = list(deps.policy.catalog.values())
    result = build_tool_pipeline(catalog, deps.role, deps.object_type, policy=deps.policy)
    groups: dict[str, list[dict[str, str]]] = {}
    for spec in result.tools:
        line = _first_sentence(spec.description or "")
        if deps.lang == "ru" and spec.can is not None:  # what it does, in their words
            line = capitalised(spec.can.ru)
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


def _maintenance_rows(db: Database, env_ids: list[str]) -> dict[str, dict[str, Any] | None]:
    out: dict[str, dict[str, Any] | None] = {}
    with db.session() as session:
        for env_id in env_ids:
            row = active_for(session, env_id=env_id)
            out[env_id] = None if row is None else window_view(row)
    return out


@family.tool(
    risk="read",
    can=Phrase("list the Superset environments", "показать окружения Superset"),
    example=Phrase("Which Superset environments exist?", "Какие окружения Superset есть?"),
)
async def list_environments(args: NoArgs, deps: ToolDeps) -> dict[str, Any]:
    """Lists the configured Superset environments (id, name, tier dev/staging/prod, URL),
    whether each is reachable now and in maintenance, and which one is selected. Use
    before acting on an environment the user named loosely. Returns one entry per
    environment."""
    envs_table = EnvTable.configured(deps.registry.configured_tiers())
    rows = deps.registry.describe(tier_of=envs_table.tier_of)
    if not rows:
        return {"environments": [], "selected": None, "note": "no Superset environment configured"}

    async def reachable(row: dict[str, Any]) -> bool | None:
        if row["error"]:
            return None
        return await deps.registry.client(row["id"]).health(timeout=HEALTH_TIMEOUT_S)

    reach = await asyncio.gather(*(reachable(r) for r in rows))
    maintenance = await asyncio.to_thread(_maintenance_rows, deps.db, [r["id"] for r in rows])
    # the environment this call resolved to, when it is a configured one
    selected = deps.env_id if deps.env_id in deps.registry.environments else None
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
    db: Database, task_id: str | None, user: str, is_admin: bool
) -> list[dict[str, Any]] | dict[str, Any] | None:
    with db.session() as session:
        if task_id:
            task = get_task(session, task_id=task_id)
            if task is None or (task.user not in (None, user) and not is_admin):
                return None  # another user's task is not shown to analysts
            return task_view(task)
        return [task_view(t) for t in list_tasks(session, user=user, limit=10)]


@family.tool(
    risk="read",
    can=Phrase("show the status of a task", "показать статус задачи"),
    example=Phrase(
        "What is the status of my last migration?", "Какой статус моей последней миграции?"
    ),
    card=CardLine(en="Show the status of task {task_id}", ru="Показать статус задачи {task_id}"),
    presentation="tasks",
    open_world=False,
)
async def get_task_status(args: TaskStatusArgs, deps: ToolDeps) -> dict[str, Any]:
    """Reports the status, progress and result of a long-running task (migration, backup,
    restore) by task id, or lists the most recent tasks. Use when the user asks how a
    task is going. Returns status, step/total and any error."""
    found = await asyncio.to_thread(
        _load_tasks, deps.db, args.task_id, deps.user_id, deps.role == "admin"
    )
    if args.task_id:
        if found is None:
            raise ToolError(f"no task with id {args.task_id!r}")
        return {"task": found}
    return {"tasks": found, "count": len(found or [])}


TOOLS = family.tools
