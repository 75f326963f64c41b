"""An audit table from an earlier release (no ``channel`` / ``client`` columns) is upgraded
in place by ``init_db``: its rows stay, new rows record the door."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import Engine, MetaData, Table, inspect
from sqlmodel import Session, SQLModel

from app.store.audit_log import list_audit, record_audit
from app.store.audit_table import AUDIT_ADDED_COLUMNS, AuditEvent
from app.store.db import init_db, make_engine
from tests.store.conftest import BACKENDS


@pytest.fixture(params=BACKENDS)
def old_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A database whose audit table has the first release's columns and one row."""
    if request.param == "sqlite":
        eng = make_engine(f"sqlite:///{tmp_path / 'old.db'}")
    else:
        eng = make_engine(request.getfixturevalue("pg_url"))
        SQLModel.metadata.drop_all(eng)
    meta = MetaData()
    columns = [c._copy() for c in AuditEvent.__table__.columns if c.name not in AUDIT_ADDED_COLUMNS]
    old = Table(AuditEvent.__tablename__, meta, *columns)
    meta.create_all(eng)
    with eng.begin() as conn:
        conn.execute(
            old.insert().values(id=uuid.uuid4(), ts=datetime.now(UTC), kind="login", user="old")
        )
    yield eng
    if request.param == "postgres":
        SQLModel.metadata.drop_all(eng)
    eng.dispose()


def test_init_db_adds_the_door_columns_and_keeps_old_rows(old_engine: Engine) -> None:
    init_db(old_engine)
    init_db(old_engine)  # idempotent
    names = {c["name"] for c in inspect(old_engine).get_columns("audit_event")}
    assert set(AUDIT_ADDED_COLUMNS) <= names
    with Session(old_engine, expire_on_commit=False) as s:
        record_audit(s, kind="tool_filtered", user="new", channel="mcp", client="cursor")
        s.commit()
        by_user = {r.user: r for r in list_audit(s)}
    assert (by_user["old"].channel, by_user["old"].client) == (None, None)
    assert (by_user["new"].channel, by_user["new"].client) == ("mcp", "cursor")
