"""The task runner: rows with status and progress, failures, and interrupted-at-start."""

from __future__ import annotations

import asyncio

import pytest

from app.errors import SupersetError, ToolError
from app.store import tasks as task_store
from app.store.db import Database
from app.tasks.worker import TaskRunner, recover_interrupted, task_view
from tests.waiting import WAIT_S, until


@pytest.fixture
def engine(tmp_path):
    """The task table's database (a fresh SQLite file)."""
    db = Database.open(f"sqlite:///{tmp_path / 'tasks.db'}")
    yield db
    db.dispose()


def row(engine, task_id):
    with engine.session() as s:
        return task_store.get_task(s, task_id=task_id)


async def test_a_job_reports_steps_and_its_result_is_stored(engine):
    runner = TaskRunner(engine)
    seen = []

    async def progress(step, total, message):
        seen.append((step, total, message))

    async def job(ctx):
        await ctx.report(1, "export")
        await ctx.report(2, "import")
        return {"imported": ["sales-overview"]}

    result = await runner.run(
        "migration", job, task_id="t1", user="alice", env_id="prod", total_steps=3,
        progress=progress,
    )  # fmt: skip
    assert result == {"imported": ["sales-overview"]}
    assert seen == [(1, 3, "export"), (2, 3, "import")]
    task = row(engine, "t1")
    assert (task.status, task.step, task.total, task.kind) == ("succeeded", 3, 3, "migration")
    assert task.result == {"imported": ["sales-overview"]}
    assert (task.user, task.env_id, task.error) == ("alice", "prod", None)


async def test_progress_is_queryable_while_the_job_runs(engine):
    runner = TaskRunner(engine)
    reached, release = asyncio.Event(), asyncio.Event()

    async def job(ctx):
        await ctx.report(1, "exporting 2 dashboards")
        reached.set()
        await release.wait()
        return "ok"

    call = asyncio.create_task(runner.run("backup", job, task_id="t2", total_steps=2))
    await asyncio.wait_for(reached.wait(), WAIT_S)
    view = task_view(row(engine, "t2"))
    assert view["status"] == "running"
    assert view["progress"] == "step 1 of 2"
    assert view["message"] == "exporting 2 dashboards"
    assert runner.running == ["t2"]
    release.set()
    assert await call == "ok"
    assert row(engine, "t2").status == "succeeded"


async def test_a_failing_job_stores_the_error_and_re_raises_it(engine):
    runner = TaskRunner(engine)

    async def job(ctx):
        await ctx.report(1, "import")
        raise SupersetError("import refused: database 'Sales' missing", status_code=422)

    with pytest.raises(SupersetError, match="import refused"):
        await runner.run("restore", job, task_id="t3", total_steps=2)
    task = row(engine, "t3")
    assert task.status == "failed"
    assert task.error == "SupersetError: import refused: database 'Sales' missing"
    assert task.step == 1


async def test_a_caller_that_stops_waiting_does_not_stop_the_job(engine):
    runner = TaskRunner(engine)
    started, release = asyncio.Event(), asyncio.Event()

    async def job(ctx):
        started.set()
        await release.wait()
        return {"done": True}

    caller = asyncio.create_task(runner.run("migration", job, task_id="t4", total_steps=1))
    await asyncio.wait_for(started.wait(), WAIT_S)
    caller.cancel()  # the caller stops waiting (a closed stream, a timeout of its own)
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert row(engine, "t4").status == "running"
    release.set()
    assert await runner.wait("t4") == {"done": True}
    assert row(engine, "t4").status == "succeeded"


async def test_a_broken_progress_listener_does_not_fail_the_job(engine):
    runner = TaskRunner(engine)
    calls = []

    async def progress(step, total, message):
        calls.append(step)
        raise RuntimeError("stream closed")

    async def job(ctx):
        await ctx.report(1, "a")
        await ctx.report(2, "b")
        return 1

    assert await runner.run("backup", job, task_id="t5", total_steps=2, progress=progress) == 1
    assert calls == [1]  # told once, then no longer
    assert row(engine, "t5").status == "succeeded"


async def test_a_pre_created_queued_row_is_adopted_but_a_task_never_runs_twice(engine):
    with engine.session() as s:
        task_store.create_task(s, kind="backup", task_id="t6", total=1)
    runner = TaskRunner(engine)

    async def job(ctx):
        return "first"

    assert await runner.run("backup", job, task_id="t6", total_steps=1) == "first"
    with pytest.raises(ToolError, match="never runs twice"):
        await runner.run("backup", job, task_id="t6", total_steps=1)


async def test_shutdown_cancels_running_jobs_and_marks_them_failed(engine):
    runner = TaskRunner(engine)

    async def job(ctx):
        await asyncio.sleep(30)

    call = asyncio.create_task(runner.run("backup", job, task_id="t7", total_steps=1))
    await until(
        lambda: (task := row(engine, "t7")) is not None and task.status == "running",
        "the job never ran",
    )
    await runner.shutdown()
    with pytest.raises(asyncio.CancelledError):
        await call
    task = row(engine, "t7")
    assert task.status == "failed" and task.error.startswith("cancelled")


@pytest.mark.parametrize(
    ("status", "after"),
    [
        ("queued", "interrupted"),  # never started: must not start silently later
        ("running", "interrupted"),  # the process died mid-write: status unknown, not re-run
        ("succeeded", "succeeded"),  # finished tasks keep their outcome
        ("failed", "failed"),  # so do failed ones
    ],
)
def test_unfinished_tasks_are_marked_interrupted_at_start(engine, status, after):
    with engine.session() as s:
        task = task_store.create_task(s, kind="migration", task_id="t8", total=3)
        task.status = status
        s.add(task)
    assert recover_interrupted(engine) == (1 if after == "interrupted" else 0)
    assert row(engine, "t8").status == after


@pytest.mark.parametrize(
    ("owner", "alive"),
    [
        # this very process: alive
        pytest.param("PROCESS", True, id="this_process"),
        # an earlier process that had our pid (a restarted container): dead
        pytest.param("HOST:PID:oldboot", False, id="earlier_process_same_pid"),
        # this host, the parent process: alive
        pytest.param("HOST:PPID:x", True, id="live_pid_on_this_host"),
        # this host, a pid that does not exist: dead
        pytest.param("HOST:999999999:x", False, id="dead_pid_on_this_host"),
        # another host: alive until its heartbeat goes stale (decided by the caller)
        pytest.param("elsewhere:1:x", True, id="other_host"),
    ],
)
def test_owner_alive_tells_live_replicas_from_dead_processes(owner: str, alive: bool) -> None:
    import os

    from app.tasks import worker

    owner = (
        worker.process_owner()
        if owner == "PROCESS"
        else owner.replace("HOST", worker._HOST)
        .replace("PPID", str(os.getppid()))
        .replace("PID", str(os.getpid()))
    )
    assert worker.owner_alive(owner) is alive
