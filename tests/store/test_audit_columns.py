"""An audit table from an earlier release (no ``channel`` / ``client`` columns) is upgraded
in place by ``init_db``: its rows stay, new rows record the door."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from sqlalchemy import Engine, MetaData, Table, inspect
from sqlmodel import Session

from app.store.audit_event import AUDIT_ADDED_COLUMNS, AuditEvent
from app.store.audit_log import list_audit, record_audit
from app.store.db import init_db


@pytest.fixture
def old_engine(bare_engine: Engine) -> Engine:
    """A database whose audit table has the first release's columns and one row."""
    eng = bare_engine
    meta = MetaData()
    columns = [c._copy() for c in AuditEvent.__table__.columns if c.name not in AUDIT_ADDED_COLUMNS]
    old = Table(AuditEvent.__tablename__, meta, *columns)
    meta.create_all(eng)
    with eng.begin() as conn:
        conn.execute(
            old.insert().values(id=uuid.uuid4(), ts=datetime.now(UTC), kind="login", user="old")
        )
    return eng


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
