"""Tasks of a dead replica: every live replica sweeps them, so none stays "running" forever.

A replica running a long task beats its row every ``HEARTBEAT_S`` (15 s,
:mod:`app.tasks.worker`). When a replica dies (SIGKILL, a lost host), its running tasks
stay ``running`` until someone notices; :func:`~app.tasks.worker.recover_interrupted`
notices only at a start. :class:`TaskSweeper` notices sooner: every ``every_s`` (30 s) each
live replica marks ``interrupted`` the unfinished tasks of *other* processes whose
heartbeat is older than ``stale_after_s`` (``STALE_AFTER_S``, 60 s: four missed beats), at
most ``limit`` a sweep. A dead replica's task is therefore marked within
``stale_after_s + every_s`` (90 s by default) of its last heartbeat; it is never re-run.
Its own tasks a replica never sweeps (a busy loop is slow, not dead).

Several replicas sweeping at once is safe: each row's UPDATE checks its conditions again.
The composition root starts one sweeper per process on PostgreSQL (``main.py``); with
SQLite there is one process, and the start-up recovery is enough.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy.exc import SQLAlchemyError

from app.store import tasks as task_store
from app.store.db import Database
from app.store.models import utcnow
from app.tasks.worker import STALE_AFTER_S, process_owner

log = logging.getLogger(__name__)

SWEEP_EVERY_S = 30.0
SWEEP_LIMIT = 100


class TaskSweeper:
    """Marks other replicas' abandoned tasks ``interrupted``, every ``every_s`` seconds."""

    def __init__(
        self,
        db: Database,
        *,
        every_s: float = SWEEP_EVERY_S,
        stale_after_s: float = STALE_AFTER_S,
        owner: str | None = None,
        limit: int = SWEEP_LIMIT,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.db = db
        self.every_s, self.stale_after_s = every_s, stale_after_s
        self.owner = owner or process_owner()  # this process: never swept by itself
        self.limit, self.clock = limit, clock
        self._task: asyncio.Task[None] | None = None

    def sweep_once(self) -> list[str]:
        """One sweep (blocking: a short transaction); the ids it marked."""
        stale = self.clock() - timedelta(seconds=self.stale_after_s)
        with self.db.session() as session:
            marked = task_store.interrupt_abandoned(
                session, me=self.owner, stale_before=stale, limit=self.limit
            )
        if marked:
            log.warning(
                "%d task(s) of a replica that stopped answering marked interrupted: %s",
                len(marked),
                ", ".join(marked),
            )
        return marked

    async def sweep(self) -> list[str]:
        """One sweep, off the event loop."""
        return await asyncio.to_thread(self.sweep_once)

    async def start(self) -> None:
        """Sweep every ``every_s`` in a task of the running loop (idempotent)."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._loop(), name="task-sweeper")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.every_s)
            try:
                await self.sweep()
            except (SQLAlchemyError, OSError) as exc:  # the database is away: next time
                log.warning("task sweep failed (%s); trying again later", type(exc).__name__)
