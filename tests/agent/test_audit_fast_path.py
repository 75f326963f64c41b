"""On a SQLite file the audit writer commits a loop's batch right on the loop when the
database is free at once (``app.store.loop_writer.LoopWriter``), and sends it to its thread when it
is not: a busy database never blocks the loop, a failing batch is still written row by
row, the WAL is checkpointed off the loop, and PostgreSQL always uses the thread."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from pathlib import Path

import pytest
from sqlalchemy import Connection, create_engine, text

from app.agent import audit_commit
from app.agent.audit import AuditWriter
from app.store.db import Database
from app.store.loop_writer import LoopWriter, checkpoint
from tests.waiting import WAIT_S, until


def _users(w: AuditWriter) -> list[str]:
    with w.db.engine.connect() as conn:  # a connection of its own: committed rows only
        return [r[0] for r in conn.execute(text("SELECT user FROM audit_event ORDER BY user"))]


def _db_file(w: AuditWriter) -> str:
    name = w.db.engine.url.database
    assert name
    return name


async def test_a_batch_is_committed_on_the_loop_when_the_database_is_free(
    writer: AuditWriter,
) -> None:
    await writer.record(kind="tool_filtered", user="ann", decision="allow")
    await writer.flush()
    assert _users(writer) == ["ann"]
    assert writer.committer._thread is None  # no thread was needed


async def test_a_busy_database_sends_the_batch_to_the_thread_and_the_loop_goes_on(
    writer: AuditWriter,
) -> None:
    await writer.record(kind="warm", user="a0", decision="allow")
    await writer.flush()  # the loop's own connection is open
    blocker = sqlite3.connect(_db_file(writer), isolation_level=None, check_same_thread=False)
    blocker.execute("BEGIN IMMEDIATE")  # another writer holds the database
    try:
        await writer.record(kind="tool_filtered", user="bea", decision="allow")
        flushed = asyncio.ensure_future(writer.flush())
        # the batch goes to the thread, and the loop goes on (this test runs on it) while
        # the database stays busy: never held for the busy timeout (5 s)
        await until(lambda: writer.committer._thread is not None, "no thread took the batch")
        assert not flushed.done()  # waiting for its row, in the thread, not on the loop
    finally:
        blocker.execute("COMMIT")
        blocker.close()
    await asyncio.wait_for(flushed, WAIT_S)
    assert _users(writer) == ["a0", "bea"]


async def test_a_batch_that_fails_on_the_loop_is_written_row_by_row_by_the_thread(
    writer: AuditWriter,
) -> None:
    await writer.record(kind="k", user="good", decision="allow")
    await writer.record(kind="k", user="bad", decision="maybe")  # not a decision
    await writer.record(kind="k", user="fine", decision="allow")
    with pytest.raises(ValueError, match="decision"):
        await writer.flush()
    assert _users(writer) == ["fine", "good"]


async def test_the_thread_checkpoints_the_wal_every_so_many_loop_commits(
    writer: AuditWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audit_commit, "CHECKPOINT_EVERY", 3)
    done: list[tuple[str, tuple[int, int, int]]] = []

    def watched(conn: Connection) -> tuple[int, int, int]:
        result = checkpoint(conn)
        done.append((threading.current_thread().name, result))
        return result

    monkeypatch.setattr(audit_commit, "checkpoint", watched)
    for n in range(3):
        assert done == []  # the loop's commits leave the WAL alone
        await writer.record(kind="k", user=f"u{n}", decision="allow")
        await writer.flush()
    await until(lambda: done, "the WAL was never checkpointed")
    [(thread, (busy, frames, copied))] = done
    assert thread == "ss-tools-audit"  # off the loop
    assert busy == 0 and frames > 0 and copied == frames  # every frame back in the database


def test_the_loop_connection_never_waits_and_never_checkpoints(tmp_path: Path) -> None:
    db = Database.open(f"sqlite:///{tmp_path / 'app.db'}")
    fast = LoopWriter.for_engine(db.engine)
    assert fast is not None
    seen: list[tuple[int, int]] = []
    assert fast.run(
        lambda conn: seen.append(
            (
                conn.exec_driver_sql("PRAGMA busy_timeout").scalar_one(),
                conn.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar_one(),
            )
        )
    )
    with db.engine.connect() as other:  # the pool's connections keep the app's settings
        assert other.exec_driver_sql("PRAGMA busy_timeout").scalar_one() > 0
        assert other.exec_driver_sql("PRAGMA wal_autocheckpoint").scalar_one() > 0
    assert seen == [(0, 0)]
    fast.close()
    db.dispose()


@pytest.mark.parametrize(
    "url", ["postgresql+psycopg://u:p@127.0.0.1:1/x", "sqlite://", "sqlite:///:memory:"]
)
def test_postgresql_and_an_in_memory_sqlite_have_no_loop_path(url: str) -> None:
    assert LoopWriter.for_engine(create_engine(url)) is None
