"""The audit writer holds an event loop's rows and commits them together: at the loop's
next ``flush`` (before every ``done``), or ``HOLD_SECONDS`` after the first one, or at
``close``. A turn's rows cost one commit, and no row is left behind by any of the three
ways out."""

from __future__ import annotations

import asyncio

import pytest
from sqlalchemy import Connection, event, text

from app.agent import audit as audit_mod
from app.agent.audit import AuditWriter
from tests.agent.scripted import call


def _committed_users(w: AuditWriter) -> list[str]:
    """Read from a connection of its own: only committed rows are seen."""
    with w.db.engine.connect() as conn:
        return [r[0] for r in conn.execute(text("SELECT user FROM audit_event ORDER BY user"))]


def _list_row(conn: Connection) -> None:
    conn.execute(text("CREATE TABLE IF NOT EXISTS probe (v TEXT)"))
    conn.execute(text("INSERT INTO probe VALUES ('listed')"))


async def test_a_turns_rows_and_its_list_row_are_one_commit(writer: AuditWriter) -> None:
    commits: list[str] = []
    event.listen(writer.db.engine, "commit", lambda conn: commits.append("commit"))
    await writer.record(kind="tool_filtered", user="alice", decision="allow")
    listed = writer.also(_list_row)
    await writer.record(kind="executed", user="alice", decision="ok")
    await writer.flush()
    await listed
    assert commits == ["commit"]
    assert _committed_users(writer) == ["alice", "alice"]


async def test_a_held_row_is_committed_without_a_flush(writer: AuditWriter) -> None:
    await writer.record(kind="tool_filtered", user="bob", decision="allow")
    assert _committed_users(writer) == []  # held in this loop's batch, not yet written
    for _ in range(200):  # HOLD_SECONDS (0.05 s) later it is handed over anyway
        await asyncio.sleep(audit_mod.HOLD_SECONDS)
        if _committed_users(writer):
            break
    assert _committed_users(writer) == ["bob"]


async def test_close_writes_the_rows_still_held(writer: AuditWriter) -> None:
    await writer.record(kind="tool_filtered", user="carol", decision="allow")
    writer.close()
    assert _committed_users(writer) == ["carol"]


async def test_a_full_batch_is_handed_over_at_once(
    writer: AuditWriter, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(audit_mod, "MAX_BATCH", 3)
    monkeypatch.setattr(audit_mod, "HOLD_SECONDS", 60.0)  # only the size can hand it over
    for name in ("a", "b", "c"):
        await writer.record(kind="k", user=name, decision="allow")
    for _ in range(200):
        await asyncio.sleep(0.01)
        if len(_committed_users(writer)) == 3:
            break
    assert _committed_users(writer) == ["a", "b", "c"]


async def test_closing_the_core_commits_the_rows_its_loop_still_holds(harness) -> None:
    """App shutdown closes the core: a row recorded since the last ``done`` (a background
    task's, a run cut short) is written before the loop goes away."""
    harness.use()
    await harness.core.audit.record(kind="tool_filtered", user="dora", decision="allow")
    assert harness.audit_rows(user="dora") == []  # still held in the loop's batch
    await harness.core.aclose()
    assert [r["kind"] for r in harness.audit_rows(user="dora")] == ["tool_filtered"]


async def test_a_runs_rows_are_committed_once_its_last_step_is_in(harness) -> None:
    """The model's last reply (no tool call) ends the run's rows: their commit starts
    there, overlapping the run's end, so they are committed by the time the answer's
    ``message`` event comes (before ``done``, as always). Without the early commit they
    would wait for ``done``."""
    harness.use_proposal(call("search_dashboards", query="sales"))
    req = await harness.turn_request("find dashboards about sales", user="erin")
    seen_at_message: list[str] | None = None
    kinds: list[str] = []
    async for ev in harness.core.run_turn(req):
        kinds.append(ev.type)
        if ev.type == "message":
            seen_at_message = [r["kind"] for r in harness.audit_rows(user="erin")]
    assert kinds[-2:] == ["message", "done"]
    assert seen_at_message is not None
    assert {"tool_filtered", "executed"} <= set(seen_at_message)
