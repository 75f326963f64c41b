"""The audit log (the security review's probes), on SQLite and on PostgreSQL: one bad
row (a NUL byte, a lone surrogate, NaN) never loses a batch; if a batch fails anyway its
rows are written one by one and the reasoning log says so; rows are append-only."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlmodel import SQLModel

from app import text as redact
from app.agent.audit import AuditWriter
from app.store import audit_log as audit_store
from app.store.audit_log import list_audit
from app.store.db import Database, make_engine

BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@dataclass
class AppDb:
    backend: str
    db: Database
    writer: AuditWriter

    def rows(self, **filters: Any) -> list[Any]:
        with self.db.session() as s:
            return list_audit(s, **filters)


def _drop_all(url: str) -> None:
    engine = make_engine(url)
    SQLModel.metadata.drop_all(engine)
    engine.dispose()


@pytest.fixture(params=BACKENDS)
def app_db(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[AppDb]:
    """The app's database (a fresh SQLite file, or the session's PostgreSQL with fresh
    tables) and an audit writer on it."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'audit.db'}"
    else:
        url = request.getfixturevalue("pg_url")
        _drop_all(url)
    db = Database.open(url)
    writer = AuditWriter(db)
    yield AppDb(request.param, db, writer)
    writer.close()
    db.dispose()
    if request.param == "postgres":
        _drop_all(url)


BAD_VALUES = {
    "nul-in-reason": {"reason": "deny\x00reason"},
    "nul-in-args": {"args": {"sql": "SELECT '\x00'", "k\x00": 1}},
    "lone-surrogate": {"reason": "bad \ud800 text", "args": {"name": "\udfff"}},
    "nan-in-args": {"args": {"ratio": float("nan"), "big": float("inf")}},
}


@pytest.mark.parametrize("bad", list(BAD_VALUES))
async def test_bad_row_never_loses_a_batch(app_db: AppDb, bad: str) -> None:
    writer = app_db.writer
    for i in range(3):
        await writer.record(kind="tool_call", user=f"other-{i}", decision="allow")
    await writer.record(kind="tool_call", user="mallory", decision="deny", **BAD_VALUES[bad])
    await writer.record(kind="tool_call", user="other-3", decision="allow")
    await writer.flush()
    users = {r.user for r in app_db.rows(kind="tool_call")}
    assert users == {"mallory", "other-0", "other-1", "other-2", "other-3"}
    stored = app_db.rows(user="mallory")[0]
    assert "\x00" not in repr(stored.model_dump())


async def test_failed_batch_is_written_row_by_row_and_logged(
    app_db: AppDb, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """With sanitising switched off, a NUL row makes PostgreSQL refuse the batch (a row
    with an unknown decision does so everywhere): the writer falls back to one row at a
    time, only that row is lost and its waiter alone hears of it."""
    monkeypatch.setattr(redact, "clean_text", lambda value: value)
    bad = {"reason": "x\x00y"} if app_db.backend == "postgres" else {"decision": "maybe"}
    loop = asyncio.get_running_loop()
    rows = [
        {"kind": "batch", "user": "a", "decision": "allow"},
        {"kind": "batch", "user": "bad", **bad},
        {"kind": "batch", "user": "b", "decision": "allow"},
    ]
    batch = [(fields, loop, loop.create_future()) for fields in rows]
    with caplog.at_level(logging.INFO, logger="ss_tools.cot"):
        await asyncio.to_thread(app_db.writer.committer._write_batch, batch)
        results = await asyncio.gather(*(f for _, _, f in batch), return_exceptions=True)
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], ValueError | DBAPIError)
    assert {r.user for r in app_db.rows(kind="batch")} == {"a", "b"}
    lines = [r.cot for r in caplog.records if getattr(r, "cot", None)]
    assert any(c["msg"] == "audit batch failed; writing its rows one by one" for c in lines)
    assert any(c["msg"] == "audit batch written row by row" and c["failed"] == 1 for c in lines)
    caplog.clear()  # the writer's ERROR line for the bad row is expected


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE audit_event SET reason = 'rewritten'",
        "DELETE FROM audit_event",
    ],
)
def test_audit_rows_are_append_only(app_db: AppDb, statement: str) -> None:
    with app_db.db.session() as s:
        audit_store.record_audit(s, kind="probe", user="alice", decision="allow")
    with pytest.raises(DBAPIError), app_db.db.engine.begin() as conn:
        conn.execute(text(statement))
    assert [r.reason for r in app_db.rows(kind="probe")] == [None]


def test_audit_table_cannot_be_truncated_on_postgres(app_db: AppDb) -> None:
    if app_db.backend != "postgres":
        pytest.skip("TRUNCATE is a PostgreSQL statement; SQLite has none")
    with app_db.db.session() as s:
        audit_store.record_audit(s, kind="probe", user="alice", decision="allow")
    with pytest.raises(DBAPIError), app_db.db.engine.begin() as conn:
        conn.execute(text("TRUNCATE audit_event"))
    assert len(app_db.rows(kind="probe")) == 1
