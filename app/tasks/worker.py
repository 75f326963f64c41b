"""The in-app task runner: long jobs (migration, backup, restore) as rows in the task table.

``await runner.run(kind, job, task_id=..., total_steps=n, progress=cb)`` (one
:class:`TaskRunner` per app, a part built by the composition root; tools get it as
``ToolDeps.tasks``):

1. creates the row (``queued``), marks it ``running``;
2. runs ``job(ctx)`` as its own asyncio task; ``await ctx.report(i, "message")`` persists
   "step i of n" + message (queryable at once through the task status tool) and forwards it
   to ``progress(step, total, message)`` so the seam can emit ``tool_progress`` events;
3. on success stores the result (``succeeded``) and returns it; on error stores the error
   (``failed``) and re-raises it.

The job is shielded from its caller: when the tool seam gives up on a call (timeout), the
job keeps running to its end and its row tells how it ended; the caller only stops
listening. A task still ``queued``/``running`` when the process died is marked
``interrupted`` by :func:`recover_interrupted` at the next start: a write is never re-run.
Database writes are short sync sessions run in a thread (``asyncio.to_thread``).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any, TypedDict, Unpack

from app.errors import SsToolsError, ToolError
from app.replica import HOST, replica_id
from app.store import tasks as task_store
from app.store.db import Database
from app.store.models import Task

log = logging.getLogger(__name__)

_HOST = HOST


def process_owner() -> str:
    """ "host:pid:boot" of this process (``app.replica.replica_id``); a task row's owner
    while it runs."""
    return replica_id()


HEARTBEAT_S = 15.0
STALE_AFTER_S = 60.0

Progress = Callable[[int, int, str], Awaitable[None]]


@dataclass
class TaskContext:
    """Handed to a job: its task id and a way to report progress."""

    task_id: str
    total: int
    _runner: TaskRunner
    _progress: Progress | None

    async def report(self, step: int, message: str, *, total: int | None = None) -> None:
        """Persist "step ``step`` of ``total``" + message, then tell the listener."""
        if total is not None:
            self.total = total
        await self._runner._db(
            task_store.update_progress,
            task_id=self.task_id,
            step=step,
            total=self.total,
            message=message,
        )
        if self._progress is None:
            return
        try:
            await self._progress(step, self.total, message)
        except Exception:  # the listener (an SSE stream) went away: keep working, stop telling
            log.warning(
                "task %s: progress listener failed; not forwarding", self.task_id, exc_info=True
            )
            self._progress = None


Job = Callable[[TaskContext], Awaitable[Any]]


class TaskScope(TypedDict, total=False):
    """What a task row is about, as :meth:`TaskRunner.run` passes it on to the row:
    its id (a new one when None or not given), the user and conversation it runs for,
    the environment it acts on."""

    task_id: str | None
    user: str | None
    conv_id: str | None
    env_id: str | None


def _jsonable(value: Any) -> Any:
    """The result as stored: JSON-able (dates and other objects become strings)."""
    return json.loads(json.dumps(value, default=str))


def _error_text(exc: BaseException) -> str:
    if isinstance(exc, SsToolsError):
        return f"{type(exc).__name__}: {exc.message}"
    return f"{type(exc).__name__}: {exc}"


class TaskRunner:
    """Runs jobs as task rows of ``db``. One per app (a part); tests make their own."""

    def __init__(self, db: Database, *, heartbeat_s: float = HEARTBEAT_S) -> None:
        self.db = db
        self.heartbeat_s = heartbeat_s  # how often a running task's row is touched
        self._jobs: dict[str, asyncio.Task[Any]] = {}

    async def _db(self, fn: Callable[..., Any], **kwargs: Any) -> Any:
        def work() -> Any:
            with self.db.session() as session:
                return fn(session, **kwargs)

        return await asyncio.to_thread(work)

    def _forget(self, task_id: str, _job: asyncio.Task[Any]) -> None:
        self._jobs.pop(task_id, None)

    @property
    def running(self) -> list[str]:
        """Ids of the jobs this process is running now."""
        return [tid for tid, job in self._jobs.items() if not job.done()]

    async def run(
        self,
        kind: str,
        coro_factory: Job,
        *,
        total_steps: int = 0,
        progress: Progress | None = None,
        **scope: Unpack[TaskScope],
    ) -> Any:
        """Run ``coro_factory(ctx)`` as task ``scope["task_id"]`` (a new id when None); return
        its result or raise its error, with the row updated either way."""
        task = await self._db(_create_or_adopt, kind=kind, total=total_steps, **scope)
        ctx = TaskContext(task.id, total_steps, self, progress)
        job = asyncio.create_task(self._drive(ctx, coro_factory), name=f"task-{kind}-{task.id}")
        self._jobs[task.id] = job
        job.add_done_callback(partial(self._forget, task.id))
        try:
            return await asyncio.shield(job)
        except asyncio.CancelledError:
            if not job.done():
                log.info("task %s: caller stopped waiting; the job runs on", task.id)
                ctx._progress = None
            raise

    async def _drive(self, ctx: TaskContext, coro_factory: Job) -> Any:
        await self._db(
            task_store.start, task_id=ctx.task_id, message="started", owner=process_owner()
        )
        beat = asyncio.create_task(self._heartbeat(ctx.task_id))
        try:
            return await self._run_job(ctx, coro_factory)
        finally:
            beat.cancel()

    async def _heartbeat(self, task_id: str) -> None:
        """Tell other replicas this task's process is alive (see recover_interrupted)."""
        while True:
            await asyncio.sleep(self.heartbeat_s)
            await self._db(task_store.touch, task_id=task_id)

    async def _run_job(self, ctx: TaskContext, coro_factory: Job) -> Any:
        try:
            result = await coro_factory(ctx)
        except asyncio.CancelledError:
            await self._db(
                task_store.fail,
                task_id=ctx.task_id,
                error="cancelled: the app stopped the task while it was running",
                message="cancelled",
            )
            raise
        except Exception as exc:
            await self._db(
                task_store.fail, task_id=ctx.task_id, error=_error_text(exc), message="failed"
            )
            raise
        await self._db(
            task_store.finish, task_id=ctx.task_id, result=_jsonable(result), message="done"
        )
        return result

    async def wait(self, task_id: str) -> Any:
        """Wait for a job of this process (tests, shutdown)."""
        job = self._jobs.get(task_id)
        return None if job is None else await asyncio.shield(job)

    async def shutdown(self) -> None:
        """Cancel the jobs still running (their rows become failed: cancelled)."""
        jobs = [j for j in self._jobs.values() if not j.done()]
        for job in jobs:
            job.cancel()
        if jobs:
            await asyncio.gather(*jobs, return_exceptions=True)


def _create_or_adopt(session: Any, *, task_id: str | None = None, **fields: Any) -> Task:
    """A new queued row, or the seam's pre-created queued row with this id."""
    if task_id:
        existing = task_store.get_task(session, task_id=task_id)
        if existing is not None:
            if existing.status != "queued":
                raise ToolError(
                    f"task '{task_id}' is already {existing.status}; a task never runs twice"
                )
            return existing
    return task_store.create_task(
        session, task_id=task_id, message="queued", owner=process_owner(), **fields
    )


def owner_alive(owner: str) -> bool:
    """Is the process that owns a task alive? Known only on this host: another host's
    replica counts as alive while its heartbeat is fresh (the caller checks staleness)."""
    host, _, rest = owner.partition(":")
    pid_text = rest.split(":", 1)[0]
    if host != _HOST or not pid_text.isdigit():
        return host != _HOST
    pid = int(pid_text)
    if pid == os.getpid():  # an earlier process with our pid (we own nothing yet)
        return owner == process_owner()
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def recover_interrupted(db: Database) -> int:
    """At app start: mark ``interrupted`` every queued/running task whose process is gone —
    on this host by pid, elsewhere by a heartbeat older than STALE_AFTER_S. A task a live
    replica is running is left alone. Returns how many were marked."""
    stale = datetime.now(UTC) - timedelta(seconds=STALE_AFTER_S)
    with db.session() as session:
        count = task_store.mark_interrupted(session, owner_alive=owner_alive, stale_before=stale)
    if count:
        log.warning("%d task(s) were unfinished when the app stopped: marked interrupted", count)
    return count


def task_view(task: Task) -> dict[str, Any]:
    """A task row as tools and the API show it."""
    return {
        "task_id": task.id,
        "kind": task.kind,
        "status": task.status,
        "step": task.step,
        "total": task.total,
        "progress": f"step {task.step} of {task.total}" if task.total else None,
        "message": task.message,
        "result": task.result,
        "error": task.error,
        "user": task.user,
        "env_id": task.env_id,
        "created_at": task.created_at.isoformat(),
        "updated_at": task.updated_at.isoformat(),
    }
