"""The audit writer commits a statement of the app's own (``AuditWriter.also``: a turn's
row in the conversation list) in the same transaction as the audit rows waiting, and a
failing one never loses an audit row."""

from __future__ import annotations

import asyncio

from sqlalchemy import Connection, text

from app.agent.audit import AuditWriter
from app.store.audit_log import list_audit


def _users(w: AuditWriter) -> set[str | None]:
    with w.db.session() as s:
        return {r.user for r in list_audit(s)}


def _noted(conn: Connection) -> None:
    conn.execute(text("CREATE TABLE IF NOT EXISTS probe (v TEXT)"))
    conn.execute(text("INSERT INTO probe VALUES ('noted')"))


def _broken(conn: Connection) -> None:
    conn.execute(text("INSERT INTO no_such_table VALUES (1)"))


async def test_own_statement_is_committed_with_the_audit_rows(writer: AuditWriter) -> None:
    await writer.record(kind="tool_filtered", user="alice", decision="allow")
    await writer.also(_noted)
    await writer.flush()
    assert _users(writer) == {"alice"}
    with writer.db.engine.connect() as conn:  # another connection: committed only
        assert [r[0] for r in conn.execute(text("SELECT v FROM probe"))] == ["noted"]


async def test_a_failing_statement_loses_no_audit_row(writer: AuditWriter) -> None:
    loop = asyncio.get_running_loop()
    rows = [{"kind": "k", "user": "a", "decision": "allow"}, _broken]
    batch = [(item, loop, loop.create_future()) for item in rows]
    batch.append(({"kind": "k", "user": "b", "decision": "allow"}, loop, loop.create_future()))
    await asyncio.to_thread(writer.committer._write_batch, batch)
    results = await asyncio.gather(*(f for _, _, f in batch), return_exceptions=True)
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], Exception)
    assert _users(writer) == {"a", "b"}
