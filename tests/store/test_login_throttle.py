"""Sign-in attempt counters (a race lets no guess through), on SQLite and PostgreSQL: one atomic
insert-or-increment per attempt, which also decides whether the attempt may check a
password; and the columns it needs are added to a table from an earlier release."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, MetaData, Table, inspect, text
from sqlmodel import Session, SQLModel

from app.store import login_throttle
from app.store.db import init_db
from app.store.migrate import ADDED_COLUMNS
from app.store.models import LoginThrottle

T0 = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
LIMITS = login_throttle.Limits(limit=3, window_s=900, backoff_s=30, backoff_max_s=100)


def _count(db: Session, at: datetime, key: str = "user:bob") -> login_throttle.Attempt:
    attempt = login_throttle.count_attempt(db, key=key, limits=LIMITS, now=at)
    db.commit()
    return attempt


def test_the_limit_th_attempt_blocks_at_once_and_later_ones_are_refused_but_counted(
    db: Session,
) -> None:
    first, second, third = (_count(db, T0 + timedelta(seconds=i)) for i in range(3))
    assert [a.allowed for a in (first, second, third)] == [True, True, True]
    assert first.new_window and first.blocked_until is None and second.blocked_until is None
    assert third.blocked_until == T0 + timedelta(seconds=2 + 30)  # blocks while it is checked
    fourth = _count(db, T0 + timedelta(seconds=3))
    assert not fourth.allowed and fourth.failures == 4
    assert fourth.blocked_until == third.blocked_until  # a refused attempt moves no block
    assert fourth.retry_after_s(T0 + timedelta(seconds=3)) == 29


def test_after_the_block_one_attempt_goes_on_and_blocks_again_for_longer(db: Session) -> None:
    for i in range(4):
        _count(db, T0 + timedelta(seconds=i))
    later = T0 + timedelta(seconds=40)  # the first block ended at T0 + 32 s
    fifth = _count(db, later)
    assert fifth.allowed and fifth.failures == 5
    assert fifth.blocked_until == later + timedelta(seconds=100)  # 30·2² = 120, capped at 100
    assert not _count(db, later + timedelta(seconds=1)).allowed


def test_a_quiet_window_is_forgotten_and_says_what_it_closed(db: Session) -> None:
    _count(db, T0)
    _count(db, T0 + timedelta(seconds=1))
    fresh = _count(db, T0 + timedelta(seconds=1000))  # over window_s without an attempt
    assert fresh.allowed and fresh.new_window and fresh.earlier_failures == 2


def test_a_refund_gives_back_one_attempt_and_ends_a_block_no_longer_earned(
    db: Session,
) -> None:
    for i in range(3):
        _count(db, T0 + timedelta(seconds=i), key="client:10.0.0.1")
    login_throttle.refund(db, key="client:10.0.0.1", limits=LIMITS)  # the 3rd one signed in
    db.commit()
    row = db.get(LoginThrottle, "client:10.0.0.1", populate_existing=True)
    assert row is not None and row.failures == 2 and row.blocked_until is None
    login_throttle.clear(db, key="client:10.0.0.1")
    db.commit()
    assert db.get(LoginThrottle, "client:10.0.0.1", populate_existing=True) is None


@pytest.fixture
def old_engine(bare_engine: Engine) -> Engine:
    """A database whose users, page sessions and throttle tables are an earlier release's."""
    eng = bare_engine
    meta = MetaData()
    for table in SQLModel.metadata.sorted_tables:
        added = ADDED_COLUMNS.get(table.name, {})
        Table(table.name, meta, *[c._copy() for c in table.columns if c.name not in added])
    meta.create_all(eng)
    with eng.begin() as conn:
        conn.execute(
            text("INSERT INTO app_user (id, username, role, password_hash, created_at, disabled)"
                 " VALUES (:id, 'old', 'admin', 'x', :ts, :off)"),
            {"id": "0" * 32, "ts": T0.replace(tzinfo=None), "off": False},
        )  # fmt: skip
    return eng


def test_init_db_adds_the_new_columns_and_keeps_the_rows(old_engine: Engine) -> None:
    init_db(old_engine)
    init_db(old_engine)  # idempotent
    for table, columns in ADDED_COLUMNS.items():
        names = {c["name"] for c in inspect(old_engine).get_columns(table)}
        assert set(columns) <= names, table
    with Session(old_engine) as s:
        stamp = s.execute(text("SELECT token_stamp FROM app_user WHERE username = 'old'"))
        assert stamp.scalar_one() is None  # an account from before: its old tokens still match
        assert login_throttle.count_attempt(s, key="user:old", limits=LIMITS, now=T0).allowed
    SQLModel.metadata.drop_all(old_engine)
    old_engine.dispose()
