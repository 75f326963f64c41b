"""Tasks of a dead replica: any live replica marks them ``interrupted``
within a bounded time, never its own, never twice. A fake clock stands for the minutes."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest

from app.store import tasks as task_store
from app.store.db import Database
from app.store.models import utcnow
from app.tasks.sweep import TaskSweeper
from app.tasks.worker import STALE_AFTER_S, process_owner
from tests.waiting import until

DEAD = "elsewhere:4242:deadbeef"  # another host's replica: known dead only by its heartbeat


@pytest.fixture
def db(sqlite_file_url: str) -> Iterator[Database]:
    database = Database.open(sqlite_file_url)
    yield database
    database.dispose()


def running(db: Database, owner: str | None, *, status: str = "running") -> str:
    """A task row of ``owner`` in ``status``, its heartbeat now."""
    with db.session() as s:
        task = task_store.create_task(s, kind="migration", owner=owner)
        if status != "queued":
            task_store.start(s, task_id=task.id, owner=owner)
        if status == "succeeded":
            task_store.finish(s, task_id=task.id, result={})
        return task.id


def status(db: Database, task_id: str) -> tuple[str, str]:
    with db.session() as s:
        task = task_store.get_task(s, task_id=task_id)
        assert task is not None
        return task.status, task.message


def later(seconds: float) -> datetime:
    return utcnow() + timedelta(seconds=seconds)


def sweeper(db: Database, at: datetime, **options: object) -> TaskSweeper:
    return TaskSweeper(db, clock=lambda: at, **options)  # type: ignore[arg-type]


def test_a_dead_replicas_running_task_is_marked_interrupted(db: Database) -> None:
    task_id = running(db, DEAD)
    assert sweeper(db, later(STALE_AFTER_S + 1)).sweep_once() == [task_id]
    assert status(db, task_id) == ("interrupted", task_store.ABANDONED_MESSAGE)


@pytest.mark.parametrize(
    ("owner", "state", "after_s", "swept"),
    [
        # a live replica's heartbeat is fresh: left alone
        (DEAD, "running", STALE_AFTER_S - 5, False),
        # this process's own task, however late its heartbeat: slow, not dead
        ("THIS PROCESS", "running", STALE_AFTER_S * 10, False),
        # a queued row nobody ever started, long ago: abandoned too
        (None, "queued", STALE_AFTER_S + 1, True),
        # a finished task is history
        (DEAD, "succeeded", STALE_AFTER_S * 10, False),
    ],
    ids=["live-replica", "own-process", "never-started", "finished"],  # the same in every
    # process (the process's owner differs), as pytest-xdist's workers need
)
def test_what_a_sweep_marks(db: Database, owner, state, after_s, swept) -> None:
    task_id = running(db, process_owner() if owner == "THIS PROCESS" else owner, status=state)
    marked = sweeper(db, later(after_s)).sweep_once()
    assert (marked == [task_id]) is swept
    assert (status(db, task_id)[0] == "interrupted") is swept


def test_a_heartbeat_keeps_a_task_alive(db: Database) -> None:
    task_id = running(db, DEAD)
    sweep_at = later(STALE_AFTER_S + 1)
    with db.session() as s:  # the owner beat just before the sweep
        task = task_store.get_task(s, task_id=task_id)
        assert task is not None
        task.updated_at = sweep_at - timedelta(seconds=1)
    assert sweeper(db, sweep_at).sweep_once() == []
    assert status(db, task_id)[0] == "running"


def test_a_sweep_is_bounded_and_the_next_one_goes_on(db: Database) -> None:
    ids = {running(db, DEAD) for _ in range(5)}
    sweep = sweeper(db, later(STALE_AFTER_S + 1), limit=2)
    first, second, third = sweep.sweep_once(), sweep.sweep_once(), sweep.sweep_once()
    assert (len(first), len(second), len(third)) == (2, 2, 1)
    assert set(first + second + third) == ids


async def test_a_live_replica_sweeps_on_its_own_within_a_bounded_time(db: Database) -> None:
    task_id = running(db, DEAD)
    sweep = sweeper(db, later(STALE_AFTER_S + 1), every_s=0.02)
    await sweep.start()
    await sweep.start()  # idempotent
    try:
        await until(
            lambda: status(db, task_id)[0] == "interrupted", "the dead replica's task stayed"
        )
    finally:
        await sweep.stop()
    assert not sweep.running


@pytest.mark.postgres
async def test_replicas_sweeping_at_once_mark_each_task_once(pg_db_url: str) -> None:
    a, b = Database.open(pg_db_url), Database.open(pg_db_url)
    try:
        ids = {running(a, DEAD) for _ in range(20)}
        at = later(STALE_AFTER_S + 1)
        one = sweeper(a, at, owner="replica-a")
        two = sweeper(b, at, owner="replica-b")
        marked = await asyncio.gather(one.sweep(), two.sweep(), one.sweep(), two.sweep())
        flat = [task_id for batch in marked for task_id in batch]
        assert ids <= set(flat) and len([t for t in flat if t in ids]) == len(ids)
        assert {status(a, t)[0] for t in ids} == {"interrupted"}
    finally:
        a.dispose()
        b.dispose()


def test_a_forked_process_is_another_replica() -> None:
    """A process forked from one that imported the app (a pre-fork server, the suite's
    fork server) gets an identity of its own: sharing its parent's, two children would
    each take the other's task rows and run signals for its own."""
    import json
    import os

    from app.replica import replica_id, replica_tag

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: report its identity, then leave without pytest's cleanup
        try:
            os.write(write, json.dumps([replica_id(), replica_tag()]).encode())
        finally:
            os._exit(0)
    os.close(write)
    child_id, child_tag = json.loads(os.read(read, 4096))
    os.close(read)
    os.waitpid(pid, 0)
    assert child_tag != replica_tag() and child_id != replica_id()
    assert child_id.split(":")[1] == str(pid) and child_id.endswith(child_tag)
