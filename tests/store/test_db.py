"""Engines, sessions and the health check of the database."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text
from sqlmodel import select

from app.sandbox.processes import free_port
from app.store import db
from app.store.audit_event import AuditEvent
from app.store.audit_log import record_audit
from app.store.models import User

_closed_port = free_port  # a port with nothing listening


def test_sqlite_file_database_uses_wal_and_a_busy_timeout(sqlite_file_url: str) -> None:
    eng = db.make_engine(sqlite_file_url)
    with eng.connect() as c:
        assert c.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert c.exec_driver_sql("PRAGMA busy_timeout").scalar() == db.SQLITE_BUSY_TIMEOUT_MS
    eng.dispose()


def test_plain_postgresql_url_uses_psycopg3() -> None:
    eng = db.make_engine("postgresql://u:pw@127.0.0.1:1/x")
    assert eng.url.drivername == "postgresql+psycopg"
    eng.dispose()


def test_a_session_commits_on_success_and_rolls_back_on_error(sqlite_file_url: str) -> None:
    database = db.Database.open(sqlite_file_url)
    with database.session() as s:
        record_audit(s, kind="login", user="alice")
    with pytest.raises(RuntimeError), database.session() as s:
        record_audit(s, kind="login", user="bob")
        raise RuntimeError("boom")
    with database.session() as s:
        assert [r.user for r in s.exec(select(AuditEvent))] == ["alice"]
    database.dispose()


def test_opening_a_database_creates_its_folder_and_tables(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'new' / 'app.db'}"
    database = db.Database.open(url)
    assert str(database.engine.url) == url and (tmp_path / "new").is_dir()
    with database.session() as s:
        assert s.exec(select(User)).all() == []
    database.dispose()


def test_db_status_reports_ok_with_dialect(sqlite_file_url: str) -> None:
    database = db.Database.open(sqlite_file_url)
    assert database.status() == {"ok": True, "dialect": "sqlite"}
    database.dispose()


def test_db_status_reports_error_without_the_password() -> None:
    eng = db.make_engine(f"postgresql+psycopg://app:s3cretpw@127.0.0.1:{_closed_port()}/x")
    status = db.Database(eng).status()
    eng.dispose()
    assert status["ok"] is False and status["dialect"] == "postgresql"
    assert status["error"] and "s3cretpw" not in status["error"]


@pytest.mark.postgres
def test_postgres_engine_answers_and_stores_json(pg_url: str) -> None:
    eng = db.make_engine(pg_url)
    db.init_db(eng)
    try:
        database = db.Database(eng)
        assert database.status() == {"ok": True, "dialect": "postgresql"}
        with database.session() as s:
            row = record_audit(s, kind="executed", args={"ids": [1, 2], "q": "x"})
        with database.session() as s:
            got = s.get(AuditEvent, row.id)
            assert got is not None and got.args == {"ids": [1, 2], "q": "x"}
            assert (
                s.execute(text("SELECT jsonb_typeof(args) FROM audit_event")).scalar() == "object"
            )
    finally:
        from sqlmodel import SQLModel

        SQLModel.metadata.drop_all(eng)
        eng.dispose()


def test_missing_postgres_binaries_give_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    from tests import pg

    monkeypatch.setattr(pg, "find_bin_dir", lambda: None)
    with pytest.raises(pg.PgUnavailableError, match="binaries not found"):
        pg.start_cluster()
