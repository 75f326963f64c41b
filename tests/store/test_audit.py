"""Audit log: append-only on both backends, filters, redaction, UTC timestamps."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, delete, text, update
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, SQLModel

from app.errors import AuditImmutableError
from app.store.audit_event import AuditEvent
from app.store.audit_log import audit_values, count_audit, insert_audit, list_audit, record_audit
from app.store.db import init_db, make_engine


def _orm_update(s: Session, row: AuditEvent) -> None:
    obj = s.get(AuditEvent, row.id)
    assert obj is not None
    obj.reason = "rewritten"
    s.flush()


def _orm_delete(s: Session, row: AuditEvent) -> None:
    obj = s.get(AuditEvent, row.id)
    s.delete(obj)
    s.flush()


def _bulk_update(s: Session, row: AuditEvent) -> None:
    s.execute(update(AuditEvent).values(reason="rewritten"))


def _bulk_delete(s: Session, row: AuditEvent) -> None:
    s.execute(delete(AuditEvent))


def _raw_update(s: Session, row: AuditEvent) -> None:
    s.execute(text("UPDATE audit_event SET reason = 'rewritten'"))


def _raw_delete(s: Session, row: AuditEvent) -> None:
    s.execute(text("DELETE FROM audit_event"))


MUTATIONS: list[Any] = [
    # change an attribute of a loaded row and flush: the mapper event refuses
    pytest.param(_orm_update, AuditImmutableError, id="orm_update"),
    # session.delete(row): the mapper event refuses
    pytest.param(_orm_delete, AuditImmutableError, id="orm_delete"),
    # update(AuditEvent) skips mapper events: the Session hook refuses
    pytest.param(_bulk_update, AuditImmutableError, id="bulk_update"),
    # delete(AuditEvent) skips mapper events: the Session hook refuses
    pytest.param(_bulk_delete, AuditImmutableError, id="bulk_delete"),
    # raw SQL bypasses the ORM entirely: the database trigger refuses
    pytest.param(_raw_update, DBAPIError, id="raw_sql_update"),
    # raw SQL DELETE: the database trigger refuses
    pytest.param(_raw_delete, DBAPIError, id="raw_sql_delete"),
]


@pytest.mark.parametrize(("mutate", "expected"), MUTATIONS)
def test_audit_rows_cannot_be_changed_or_removed(
    engine: Engine, mutate: Callable[[Session, AuditEvent], None], expected: type[Exception]
) -> None:
    with Session(engine, expire_on_commit=False) as s:
        row = record_audit(
            s,
            kind="executed",
            user="alice",
            tool="search_dashboards",
            decision="ok",
            reason="original",
        )
        s.commit()
    with Session(engine) as s, pytest.raises(expected, match="append-only"):
        mutate(s, row)
    with Session(engine) as s:
        rows = list_audit(s)
        assert [(r.id, r.reason) for r in rows] == [(row.id, "original")]


@pytest.mark.postgres
def test_audit_table_cannot_be_truncated_on_postgres(pg_url: str) -> None:
    eng = make_engine(pg_url)
    SQLModel.metadata.drop_all(eng)
    init_db(eng)
    try:
        with Session(eng) as s:
            record_audit(s, kind="login", user="alice")
            s.commit()
        with Session(eng) as s, pytest.raises(DBAPIError, match="append-only"):
            s.execute(text("TRUNCATE audit_event"))
    finally:
        SQLModel.metadata.drop_all(eng)
        eng.dispose()


def test_init_db_twice_keeps_rows_and_triggers(engine: Engine) -> None:
    with Session(engine) as s:
        record_audit(s, kind="login", user="bob")
        s.commit()
    init_db(engine)
    with Session(engine) as s, pytest.raises(DBAPIError):
        s.execute(text("DELETE FROM audit_event"))
    with Session(engine) as s:
        assert count_audit(s) == 1


def _seed(s: Session) -> None:
    base = datetime(2026, 1, 1, tzinfo=UTC)
    columns = ("kind", "user", "tool", "env", "decision", "conv_id")
    rows = [
        ("executed", "alice", "search_dashboards", "dev", "ok", "c1"),
        ("permission_denied", "bob", "delete_dashboard", "prod", "deny", "c2"),
        ("confirmed", "alice", "deploy_dashboard", "prod", "confirm", "c1"),
        ("failed", "carol", "superset_execute_sql", "staging", "error", "c3"),
        ("executed", "bob", "search_dashboards", "prod", "ok", "c2"),
    ]
    for i, row in enumerate(rows):
        # rows are built directly so each gets a deterministic timestamp
        ts = base + timedelta(minutes=i)
        s.add(AuditEvent(**dict(zip(columns, row, strict=True)), role="admin", ts=ts))
    s.commit()


FILTERS: list[Any] = [
    # no filter: every row, newest first
    pytest.param(
        {},
        [
            "search_dashboards",
            "superset_execute_sql",
            "deploy_dashboard",
            "delete_dashboard",
            "search_dashboards",
        ],
        id="all",
    ),
    # by user
    pytest.param({"user": "alice"}, ["deploy_dashboard", "search_dashboards"], id="user"),
    # by tool
    pytest.param({"tool": "search_dashboards"}, ["search_dashboards"] * 2, id="tool"),
    # by decision
    pytest.param({"decision": "deny"}, ["delete_dashboard"], id="decision"),
    # by environment
    pytest.param(
        {"env": "prod"}, ["search_dashboards", "deploy_dashboard", "delete_dashboard"], id="env"
    ),
    # by kind
    pytest.param({"kind": "failed"}, ["superset_execute_sql"], id="kind"),
    # by conversation
    pytest.param({"conv_id": "c2"}, ["search_dashboards", "delete_dashboard"], id="conv"),
    # filters combine with AND
    pytest.param(
        {"user": "bob", "env": "prod", "decision": "ok"}, ["search_dashboards"], id="combined"
    ),
    # since is inclusive
    pytest.param(
        {"since": datetime(2026, 1, 1, 0, 3, tzinfo=UTC)},
        ["search_dashboards", "superset_execute_sql"],
        id="since",
    ),
    # until is exclusive
    pytest.param(
        {"until": datetime(2026, 1, 1, 0, 2, tzinfo=UTC)},
        ["delete_dashboard", "search_dashboards"],
        id="until",
    ),
    # a naive datetime is taken as UTC
    pytest.param({"since": datetime(2026, 1, 1, 0, 4)}, ["search_dashboards"], id="naive_utc"),
    # limit keeps the newest
    pytest.param({"limit": 2}, ["search_dashboards", "superset_execute_sql"], id="limit"),
    # nothing matches
    pytest.param({"user": "mallory"}, [], id="no_match"),
]


@pytest.mark.parametrize(("filters", "tools"), FILTERS)
def test_list_audit_filters_newest_first(
    db: Session, filters: dict[str, Any], tools: list[str]
) -> None:
    _seed(db)
    assert [r.tool for r in list_audit(db, **filters)] == tools
    counted = {k: v for k, v in filters.items() if k != "limit"}
    if "limit" not in filters:
        assert count_audit(db, **counted) == len(tools)


def test_audit_timestamps_come_back_timezone_aware_utc(db: Session) -> None:
    row = record_audit(db, kind="login", user="alice")
    db.commit()
    db.expire_all()
    fresh = db.get(AuditEvent, row.id)
    assert fresh is not None and fresh.ts.tzinfo is not None
    assert fresh.ts.utcoffset() == timedelta(0)
    assert abs(datetime.now(UTC) - fresh.ts) < timedelta(minutes=1)


def test_recorded_args_are_redacted_before_storage(db: Session) -> None:
    row = record_audit(
        db,
        kind="executed",
        tool="superset_execute_sql",
        args={
            "sql": "select 1",
            "password": "hunter2",
            "nested": {"Authorization": "Bearer abc", "ok": [1, 2]},
        },
    )
    db.commit()
    db.expire_all()
    stored = db.get(AuditEvent, row.id)
    assert stored is not None
    assert stored.args == {
        "sql": "select 1",
        "password": "***",
        "nested": {"Authorization": "***", "ok": [1, 2]},
    }


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        # an audit row without a kind says nothing
        ({"kind": ""}, "kind"),
        # decisions are a closed set
        ({"kind": "executed", "decision": "maybe"}, "decision"),
    ],
)
def test_record_audit_rejects_malformed_rows(
    session: Session, kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        record_audit(session, **kwargs)


def test_a_row_naming_no_audit_column_is_refused(session: Session) -> None:
    """A misspelt field never reaches the log (nor is dropped without a word)."""
    with pytest.raises(TypeError, match="colour"):
        record_audit(session, kind="executed", colour="red")
    assert count_audit(session) == 0


def test_a_batch_insert_stores_what_the_orm_stores(engine: Engine) -> None:
    """The writer's batch path (driver SQL on SQLite, Core elsewhere) and the ORM path
    store every column alike: the id, the UTC moment, JSON args (and none), the text."""
    moment = datetime(2026, 12, 1, 22, 30, 5, 123456, tzinfo=UTC)
    fields: dict[str, Any] = {
        "kind": "tool_call",
        "user": "ann",
        "role": "admin",
        "conv_id": "c1",
        "tool": "search_dashboards",
        "env": "dev",
        "decision": "allow",
        "reason": "read",
        "duration_ms": 1.5,
        "ts": moment,
        "channel": "page",
        "client": None,
    }
    with engine.begin() as conn:
        insert_audit(conn, [audit_values(**fields, args={"q": "sales", "n": [1, 2]})])
        insert_audit(conn, [audit_values(**{**fields, "conv_id": "c2"}, args=None)])
    with Session(engine) as s:
        record_audit(s, **{**fields, "conv_id": "c3"}, args={"q": "sales", "n": [1, 2]})
        s.commit()
        rows = {r.conv_id: r for r in list_audit(s)}
    batch, none, orm = rows["c1"], rows["c2"], rows["c3"]
    assert batch.ts == orm.ts == moment
    assert batch.args == orm.args == {"q": "sales", "n": [1, 2]}
    assert none.args is None
    assert isinstance(batch.id, type(orm.id)) and batch.id != orm.id
    assert (batch.kind, batch.user, batch.tool, batch.decision, batch.duration_ms) == (
        orm.kind,
        orm.user,
        orm.tool,
        orm.decision,
        orm.duration_ms,
    )
    with Session(engine) as s:
        assert count_audit(s, conv_id="c1", decision="allow", since=moment) == 1
