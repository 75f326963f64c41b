"""The audit writer commits each row at record time, in a transaction of its own (on the
loop when the SQLite file is free at once, else by its thread): no flush and no timer is
needed for a row to reach the database, ``flush`` waits for this loop's rows and reports
a failed one, ``close`` writes what is queued, and a finished decision's row survives the
process being killed right after."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sqlalchemy import Connection, event, text

from app.agent.audit import AuditWriter
from app.store.db import Database
from tests.agent.scripted import call
from tests.waiting import until

ROOT = Path(__file__).resolve().parents[2]


def _committed_users(db: Database) -> list[str]:
    """Read from a connection of its own: only committed rows are seen."""
    with db.engine.connect() as conn:
        return [r[0] for r in conn.execute(text("SELECT user FROM audit_event ORDER BY user"))]


def _list_row(conn: Connection) -> None:
    conn.execute(text("CREATE TABLE IF NOT EXISTS probe (v TEXT)"))
    conn.execute(text("INSERT INTO probe VALUES ('listed')"))


async def test_a_row_is_committed_without_a_flush(writer: AuditWriter) -> None:
    await writer.record(kind="tool_filtered", user="bob", decision="allow")
    # committed at record time: no flush, no timer
    await until(lambda: _committed_users(writer.db), "the row was never committed")
    assert _committed_users(writer.db) == ["bob"]


async def test_each_row_and_the_list_row_are_commits_of_their_own_in_order(
    writer: AuditWriter,
) -> None:
    commits: list[str] = []
    event.listen(writer.db.engine, "commit", lambda conn: commits.append("commit"))
    await writer.record(kind="tool_filtered", user="alice", decision="allow")
    listed = writer.also(_list_row)
    await writer.record(kind="executed", user="alice", decision="ok")
    await writer.flush()
    await listed
    assert commits == ["commit", "commit", "commit"]
    assert _committed_users(writer.db) == ["alice", "alice"]


async def test_close_writes_the_rows_queued_and_a_later_row_still_lands(
    writer: AuditWriter,
) -> None:
    for name in ("carol", "dan", "eve"):
        await writer.record(kind="tool_filtered", user=name, decision="allow")
    writer.close()  # waits for the queued commits
    assert _committed_users(writer.db) == ["carol", "dan", "eve"]
    await writer.record(kind="tool_filtered", user="fay", decision="allow")
    await writer.flush()
    assert _committed_users(writer.db) == ["carol", "dan", "eve", "fay"]


async def test_a_failed_row_is_reported_by_flush_and_loses_no_other(writer: AuditWriter) -> None:
    await writer.record(kind="k", user="a", decision="allow")
    await writer.record(kind="k", user="bad", decision="maybe")  # not a decision
    await writer.record(kind="k", user="b", decision="allow")
    # the failure is kept until a flush reports it
    await until(lambda: len(_committed_users(writer.db)) == 2, "the good rows never landed")
    with pytest.raises(ValueError, match="unknown audit decision"):
        await writer.flush()
    assert _committed_users(writer.db) == ["a", "b"]
    await writer.flush()  # reported once


async def test_closing_the_core_commits_the_rows_of_its_loop(harness) -> None:
    """App shutdown closes the core: a row recorded since the last ``done`` (a background
    task's, a run cut short) is written before the loop goes away."""
    harness.use()
    await harness.core.audit.record(kind="tool_filtered", user="dora", decision="allow")
    await harness.core.aclose()
    assert [r["kind"] for r in harness.audit_rows(user="dora")] == ["tool_filtered"]


async def test_a_runs_rows_are_committed_by_its_answer(harness) -> None:
    """Each row is committed as it is recorded, so the run's rows are in by the time the
    answer's ``message`` event comes (``done`` waits for them as always)."""
    harness.use_proposal(call("search_dashboards", query="sales"))
    req = await harness.turn_request("find dashboards about sales", user="erin")
    kinds: list[str] = []
    async for ev in harness.core.run_turn(req):
        kinds.append(ev.type)
    assert kinds[-2:] == ["message", "done"]
    assert {"tool_filtered", "executed"} <= {r["kind"] for r in harness.audit_rows(user="erin")}


KILLED = textwrap.dedent(
    """
    import asyncio, os, signal, sys
    from sqlalchemy import text
    from app.agent.audit import AuditWriter
    from app.store.db import Database

    async def main() -> None:
        db = Database.open(sys.argv[1])
        writer = AuditWriter(db)
        await writer.record(kind="executed", user="finished", decision="ok")
        await writer.flush()  # the decision is finished: its turn would say done now
        await writer.record(kind="executed", user="unflushed", decision="ok")
        while True:  # no flush, no close: committed by the writer's thread on its own
            with db.engine.connect() as conn:
                if conn.execute(text("SELECT count(*) FROM audit_event")).scalar() == 2:
                    break
            await asyncio.sleep(0.001)
        print("recorded", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)

    asyncio.run(main())
    """
)


def test_a_finished_decision_survives_a_sigkill_right_after(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'app.db'}"
    Database.open(url).dispose()  # the tables, made before the killed process starts
    done = subprocess.run(
        [sys.executable, "-c", KILLED, url], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert done.stdout.strip() == "recorded"
    assert _committed_users(Database.open(url)) == ["finished", "unflushed"]
