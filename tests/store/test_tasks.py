"""Task rows: lifecycle, listing, and the restart rule (unfinished -> interrupted)."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from app.store import tasks
from app.store.tasks import INTERRUPTED_MESSAGE, TaskNotFoundError, TaskStateError


def test_task_runs_from_queued_to_succeeded_with_progress(session: Session) -> None:
    t = tasks.create_task(session, kind="run_backup", user="alice", env_id="dev", total=3)
    assert (t.status, t.step, t.total) == ("queued", 0, 3)
    tasks.start(session, task_id=t.id, message="exporting")
    tasks.update_progress(session, task_id=t.id, step=2, message="2 of 3")
    done = tasks.finish(session, task_id=t.id, result={"backup_id": "b1"})
    assert (done.status, done.step, done.result) == ("succeeded", 3, {"backup_id": "b1"})
    assert done.updated_at >= done.created_at
    assert tasks.get_task(session, task_id=t.id) is done


def test_caller_may_choose_the_task_id(session: Session) -> None:
    t = tasks.create_task(session, kind="execute_migration", task_id="abc123")
    assert tasks.get_task(session, task_id="abc123") is t


def test_failed_task_keeps_its_error(session: Session) -> None:
    t = tasks.create_task(session, kind="restore_backup")
    tasks.start(session, task_id=t.id)
    failed = tasks.fail(session, task_id=t.id, error="Superset answered HTTP 500")
    assert (failed.status, failed.error) == ("failed", "Superset answered HTTP 500")


@pytest.mark.parametrize(
    ("setup", "action", "error"),
    [
        # a finished task cannot finish again
        (["start", "finish"], "finish", TaskStateError),
        # a failed task cannot be started again
        (["start", "fail"], "start", TaskStateError),
        # a running task cannot be started twice
        (["start"], "start", TaskStateError),
        # progress on a finished task is refused
        (["start", "finish"], "progress", TaskStateError),
    ],
)
def test_invalid_task_transitions_are_refused(
    session: Session, setup: list[str], action: str, error: type[Exception]
) -> None:
    t = tasks.create_task(session, kind="run_backup")
    steps = {
        "start": lambda: tasks.start(session, task_id=t.id),
        "finish": lambda: tasks.finish(session, task_id=t.id),
        "fail": lambda: tasks.fail(session, task_id=t.id, error="x"),
        "progress": lambda: tasks.update_progress(session, task_id=t.id, step=1),
    }
    for step in setup:
        steps[step]()
    with pytest.raises(error):
        steps[action]()


def test_unknown_task_is_reported(session: Session) -> None:
    assert tasks.get_task(session, task_id="nope") is None
    with pytest.raises(TaskNotFoundError):
        tasks.start(session, task_id="nope")


def test_restart_marks_queued_and_running_tasks_interrupted(db: Session) -> None:
    queued = tasks.create_task(db, kind="run_backup")
    running = tasks.create_task(db, kind="execute_migration")
    tasks.start(db, task_id=running.id)
    done = tasks.create_task(db, kind="run_backup")
    tasks.start(db, task_id=done.id)
    tasks.finish(db, task_id=done.id, result={"ok": True})
    db.commit()

    assert tasks.mark_interrupted(db) == 2
    db.commit()
    db.expire_all()
    got = {t.id: (t.status, t.message) for t in tasks.list_tasks(db, limit=10)}
    assert got[queued.id] == ("interrupted", INTERRUPTED_MESSAGE)
    assert got[running.id] == ("interrupted", INTERRUPTED_MESSAGE)
    assert got[done.id][0] == "succeeded"
    assert tasks.mark_interrupted(db) == 0  # nothing is re-run or re-marked


def test_list_tasks_filters_and_puts_newest_first(session: Session) -> None:
    a = tasks.create_task(session, kind="run_backup", user="alice", conv_id="c1")
    b = tasks.create_task(session, kind="execute_migration", user="bob", conv_id="c2")
    c = tasks.create_task(session, kind="run_backup", user="alice", conv_id="c1")
    assert [t.id for t in tasks.list_tasks(session, user="alice")] == [c.id, a.id]
    assert [t.id for t in tasks.list_tasks(session, kind="execute_migration")] == [b.id]
    assert [t.id for t in tasks.list_tasks(session, conv_id="c1", limit=1)] == [c.id]


def test_restart_with_replicas_interrupts_only_tasks_whose_process_is_gone(
    session: Session,
) -> None:
    from datetime import timedelta

    from app.store.models import utcnow

    def running(owner: str | None) -> str:
        task = tasks.create_task(session, kind="execute_migration", owner=owner)
        tasks.start(session, task_id=task.id)
        return task.id

    dead_here = running("here:111:a")  # this host, its pid is gone
    live_here = running("here:222:b")  # this host, pid alive
    live_there = running("there:333:c")  # another replica, fresh heartbeat
    stale_there = running("there:444:d")  # another replica, heartbeat long ago
    legacy = running(None)  # no owner recorded
    row = tasks.get_task(session, task_id=stale_there)
    assert row is not None
    row.updated_at = utcnow() - timedelta(minutes=5)
    session.add(row)
    session.flush()

    def owner_alive(owner: str) -> bool:
        return owner != "here:111:a"

    marked = tasks.mark_interrupted(
        session, owner_alive=owner_alive, stale_before=utcnow() - timedelta(seconds=60)
    )
    status = {t.id: t.status for t in tasks.list_tasks(session, limit=20)}
    assert marked == 3
    assert status[dead_here] == status[stale_there] == status[legacy] == "interrupted"
    assert status[live_here] == status[live_there] == "running"
