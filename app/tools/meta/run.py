"""Meta tools: what may I do here, which environments exist, how is my task doing.
(Their specs: ``spec.py``; their views: ``view.py``.)"""

from __future__ import annotations

import asyncio
from typing import Any

from app.errors import ToolError
from app.policy import EnvTable, build_tool_pipeline, may_approve
from app.store import approvals
from app.store.db import Database
from app.store.maintenance import active_for
from app.store.tasks import get_task, list_tasks
from app.tasks.worker import task_view
from app.tools.args import NoArgs
from app.tools.declare import capitalised
from app.tools.kit import Implementations, ToolDeps
from app.tools.maintenance.run import window_view
from app.tools.meta import spec as specs
from app.tools.meta import view
from app.tools.meta.spec import TaskStatusArgs

HEALTH_TIMEOUT_S = 3.0

runs = Implementations(specs.family)


def _first_sentence(text: str, limit: int = 140) -> str:
    """The first sentence of an LLM-facing description: enough for a capabilities list."""
    first = " ".join(text.split()).split(". ")[0].rstrip(".")
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


@runs.implements(specs.show_capabilities, view=view.capabilities)
async def show_capabilities(args: NoArgs, deps: ToolDeps) -> dict[str, Any]:
    """The pipeline's answer under the call's policy, grouped by family (each tool's first
    sentence, or its ``can`` in Russian)."""
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


@runs.implements(specs.list_environments, view=view.environments)
async def list_environments(args: NoArgs, deps: ToolDeps) -> dict[str, Any]:
    """The registry's environments with their tiers, each probed for health (in parallel,
    ``HEALTH_TIMEOUT_S``) and looked up for an active maintenance window."""
    envs_table = EnvTable.configured(deps.registry.configured_tiers())
    rows = deps.registry.describe(tier_of=envs_table.tier_of)
    if not rows:
        return {"environments": [], "selected": None, "note": "no Superset environment configured"}

    async def reachable(row: dict[str, Any]) -> bool | None:
        if row["error"]:
            return None
        # /health needs no sign-in: on a person environment this client signs in as no one
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


#: a request for a second person's approval, as a task's status (its outcome once run)
APPROVAL_STATES = {"pending": "waiting_for_approval", "completed": "succeeded", "timeout": "failed"}


def _approval_task(row: approvals.ApprovalRequest) -> dict[str, Any]:
    """A request for a second person's approval as a task row (``get_task_status`` with
    the request's id, e.g. from an MCP "awaiting approval" answer)."""
    state = row.outcome if row.status == "approved" and row.outcome else row.status
    if row.status == "approved" and not row.outcome:
        state = "running"
    when = row.finished_at or row.decided_at or row.created_at
    return {
        "task_id": row.id,
        "kind": f"approval of {row.tool_name}",
        "status": APPROVAL_STATES.get(state, state),
        "message": f"requested by {row.requester}"
        + (f"; {row.status} by {row.decided_by}" if row.decided_by else ""),
        "error": row.reason if row.status == "denied" else None,
        "env_id": row.env_id,
        "updated_at": when.isoformat(timespec="seconds"),
        "approval_id": row.id,
        "outcome": row.outcome,
    }


def _load_tasks(
    db: Database, task_id: str | None, user: str, is_admin: bool, approver: bool = False
) -> list[dict[str, Any]] | dict[str, Any] | None:
    with db.session() as session:
        if task_id:
            task = get_task(session, task_id=task_id)
            if task is None:  # the id of a request for approval: its requester or approvers
                request = approvals.get(session, approval_id=task_id)
                mine = request is not None and (request.requester == user or approver)
                return _approval_task(request) if request is not None and mine else None
            if task.user not in (None, user) and not is_admin:
                return None  # another user's task is not shown to analysts
            return task_view(task)
        return [task_view(t) for t in list_tasks(session, user=user, limit=10)]


@runs.implements(specs.get_task_status)
async def get_task_status(args: TaskStatusArgs, deps: ToolDeps) -> dict[str, Any]:
    """One task row (another user's only for admins) — or a request for a second person's
    approval by its id (its requester's or an approver's) — or the caller's ten latest."""
    approver = deps.policy is not None and may_approve(deps.policy.approval, deps.role)
    found = await asyncio.to_thread(
        _load_tasks, deps.db, args.task_id, deps.user_id, deps.role == "admin", approver
    )
    if args.task_id:
        if found is None:
            raise ToolError(f"no task with id {args.task_id!r}")
        return {"task": found}
    return {"tasks": found, "count": len(found or [])}
