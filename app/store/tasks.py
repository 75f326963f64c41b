"""Long-running tasks (migration, backup, restore) as rows, so a restart never loses or
silently repeats one: at start-up every unfinished task is marked ``interrupted``.

Status flow: ``queued -> running -> succeeded | failed``; ``queued | running -> interrupted``.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, TypedDict, Unpack

from sqlalchemy import or_, update
from sqlmodel import Session, col, select

from app.errors import SsToolsError
from app.store.columns import as_utc, utcnow
from app.store.models import Task
from app.store.rows import changed, new_row, saved, where_equal

UNFINISHED = ("queued", "running")
FINISHED = ("succeeded", "failed", "interrupted")
INTERRUPTED_MESSAGE = "interrupted by restart; not re-run"
ABANDONED_MESSAGE = "interrupted: its replica stopped answering; not re-run"


class TaskNotFoundError(SsToolsError):
    """No task with this id."""


class TaskStateError(SsToolsError):
    """The task cannot make this transition (e.g. finishing a finished task)."""


def create_task(
    session: Session,
    *,
    kind: str,
    user: str | None = None,
    conv_id: str | None = None,
    env_id: str | None = None,
    total: int = 0,
    message: str = "",
    task_id: str | None = None,
    owner: str | None = None,
) -> Task:
    return new_row(
        session,
        Task,
        task_id,
        kind=kind,
        user=user,
        conv_id=conv_id,
        env_id=env_id,
        total=total,
        message=message,
        owner=owner,
    )


def get_task(session: Session, *, task_id: str) -> Task | None:
    return session.get(Task, task_id)


def _require(session: Session, task_id: str, allowed: tuple[str, ...]) -> Task:
    task = session.get(Task, task_id)
    if task is None:
        raise TaskNotFoundError(f"no task '{task_id}'")
    if task.status not in allowed:
        raise TaskStateError(f"task '{task_id}' is {task.status}; expected one of {allowed}")
    return task


def _move(session: Session, task: Task, status: str, **changes: Any) -> Task:
    """``task`` now ``status``, with each change given (None leaves a field as it is);
    ``updated_at`` set and flushed."""
    task.status = status
    for name, value in changes.items():
        if value is not None:
            setattr(task, name, value)
    task.updated_at = utcnow()
    return saved(session, task)


def start(
    session: Session, *, task_id: str, message: str | None = None, owner: str | None = None
) -> Task:
    task = _require(session, task_id, ("queued",))
    return _move(session, task, "running", owner=owner, message=message)


def update_progress(
    session: Session,
    *,
    task_id: str,
    step: int,
    total: int | None = None,
    message: str | None = None,
) -> Task:
    task = _require(session, task_id, UNFINISHED)
    return _move(session, task, "running", step=step, total=total, message=message)


def finish(
    session: Session, *, task_id: str, result: Any = None, message: str | None = None
) -> Task:
    task = _require(session, task_id, UNFINISHED)
    task.result = result
    return _move(session, task, "succeeded", step=task.total or None, message=message)


def fail(session: Session, *, task_id: str, error: str, message: str | None = None) -> Task:
    task = _require(session, task_id, UNFINISHED)
    return _move(session, task, "failed", error=error, message=message)


class TaskFilters(TypedDict, total=False):
    """The filters :func:`list_tasks` takes (each optional; None means "any")."""

    user: str | None
    conv_id: str | None
    status: str | None
    kind: str | None


_FILTER_COLUMNS = {name: getattr(Task, name) for name in TaskFilters.__annotations__}


def list_tasks(session: Session, *, limit: int = 20, **filters: Unpack[TaskFilters]) -> list[Task]:
    """Tasks matching every given filter, newest first."""
    stmt = where_equal(select(Task), _FILTER_COLUMNS, filters)
    stmt = stmt.order_by(col(Task.created_at).desc(), col(Task.id)).limit(max(0, limit))
    return [*session.exec(stmt)]


def mark_interrupted(
    session: Session,
    *,
    owner_alive: Callable[[str], bool] | None = None,
    stale_before: datetime | None = None,
) -> int:
    """At start-up: queued or running tasks whose process is gone become ``interrupted``
    (never re-run). Returns how many were marked.

    Without arguments every unfinished task is marked (one process). With several
    replicas on one database, pass ``owner_alive(owner) -> bool`` (False when that process
    is known dead) and ``stale_before`` (a heartbeat older than this means dead): a task
    of a live replica is left alone."""
    rows = [*session.exec(select(Task).where(col(Task.status).in_(UNFINISHED)))]
    marked = 0
    for task in rows:
        dead = (
            owner_alive is None
            or task.owner is None
            or not owner_alive(task.owner)
            or (stale_before is not None and as_utc(task.updated_at) < as_utc(stale_before))
        )
        if not dead:
            continue
        stmt = (
            update(Task)
            .where(col(Task.id) == task.id, col(Task.status).in_(UNFINISHED))
            .values(status="interrupted", message=INTERRUPTED_MESSAGE, updated_at=utcnow())
            .execution_options(synchronize_session="fetch")
        )
        marked += changed(session.execute(stmt))
    return marked


def interrupt_abandoned(
    session: Session, *, me: str, stale_before: datetime, limit: int = 100
) -> list[str]:
    """A live replica's sweep: up to ``limit`` unfinished tasks of *other* processes whose
    heartbeat (``updated_at``) is older than ``stale_before`` become ``interrupted``
    (never re-run). Returns their ids. Safe beside other sweeps and heartbeats: each row's
    conditions are checked again by its own UPDATE."""
    candidates = select(Task.id).where(
        col(Task.status).in_(UNFINISHED),
        col(Task.updated_at) < stale_before,
        or_(col(Task.owner).is_(None), col(Task.owner) != me),
    )
    ids = [*session.exec(candidates.order_by(col(Task.updated_at)).limit(max(0, limit)))]
    marked = []
    for task_id in ids:
        stmt = (
            update(Task)
            .where(
                col(Task.id) == task_id,
                col(Task.status).in_(UNFINISHED),
                col(Task.updated_at) < stale_before,
            )
            .values(status="interrupted", message=ABANDONED_MESSAGE, updated_at=utcnow())
            .execution_options(synchronize_session="fetch")
        )
        if changed(session.execute(stmt)):
            marked.append(task_id)
    return marked


def touch(session: Session, *, task_id: str) -> None:
    """Heartbeat of a running task (its process is alive)."""
    session.execute(
        update(Task)
        .where(col(Task.id) == task_id, col(Task.status) == "running")
        .values(updated_at=utcnow())
        .execution_options(synchronize_session=False)
    )
