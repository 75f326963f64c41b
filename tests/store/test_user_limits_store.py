"""A user's pace (``user_rates``: a bucket refilling evenly) and slots for running turns
(``run_slots``: leases that expire), on SQLite and PostgreSQL, with the caller's clock;
and both raced from many threads on two engines (two replicas): nothing slips past."""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from app.store import run_slots, user_rates
from app.store.db import make_engine
from tests.store.racing import race

T0 = 1_800_000_000.0  # a fixed clock (epoch seconds)
TTL = 60.0


def _take(db: Session, at: float, limit: int = 3, key: str = "turn:ada") -> user_rates.Pace:
    pace = user_rates.take(db, key=key, limit=limit, window_s=60.0, now=at)
    db.commit()
    return pace


def test_a_burst_of_the_limit_passes_then_one_per_interval(db: Session) -> None:
    assert [_take(db, T0).allowed for _ in range(3)] == [True, True, True]
    refused = _take(db, T0 + 1)
    assert not refused.allowed and refused.retry_after_s == pytest.approx(19.0)
    assert _take(db, T0 + 20).allowed  # one request's share of the minute came back
    assert not _take(db, T0 + 20).allowed


def test_refused_requests_do_not_push_the_wait_further(db: Session) -> None:
    for _ in range(3):
        _take(db, T0)
    waits = [_take(db, T0).retry_after_s for _ in range(5)]
    assert waits == [pytest.approx(20.0)] * 5
    assert _take(db, T0 + 20).allowed


@pytest.mark.parametrize(
    ("keys", "passed"),
    [
        # two users: each has the whole limit
        (["turn:ada", "turn:bob"] * 3, [True] * 6),
        # turns and calls of one user are counted apart
        (["turn:ada", "call:ada"] * 3, [True] * 6),
        # one user's fourth turn is refused
        (["turn:ada"] * 4, [True, True, True, False]),
    ],
)
def test_each_key_has_its_own_bucket(db: Session, keys: list[str], passed: list[bool]) -> None:
    assert [_take(db, T0, key=k).allowed for k in keys] == passed


def test_a_full_bucket_is_forgotten(db: Session) -> None:
    _take(db, T0)
    assert user_rates.prune(db, now=T0 + 1) == 0  # not full yet: kept
    assert user_rates.prune(db, now=T0 + 21) == 1
    db.commit()
    assert [_take(db, T0 + 21).allowed for _ in range(3)] == [True] * 3


def _acquire(db: Session, at: float, lease: str, limit: int = 2) -> int | None:
    slot = run_slots.acquire(
        db, user_key="ada", limit=limit, lease=lease, holder="test", conv_id=None, now=at, ttl_s=TTL
    )
    db.commit()
    return slot


def test_a_user_has_limit_slots_and_a_freed_one_is_taken_again(db: Session) -> None:
    assert _acquire(db, T0, "a") == 0 and _acquire(db, T0, "b") == 1
    assert _acquire(db, T0, "c") is None
    assert run_slots.running(db, user_key="ada", now=T0) == 2
    assert run_slots.release(db, user_key="ada", slot=0, lease="a")
    db.commit()
    assert _acquire(db, T0, "c") == 0


def test_a_slot_not_renewed_expires_and_its_old_holder_cannot_touch_the_new_one(
    db: Session,
) -> None:
    _acquire(db, T0, "dead-replica")
    _acquire(db, T0, "live")
    assert run_slots.renew(db, user_key="ada", slot=1, lease="live", expires_at=T0 + 50 + TTL)
    db.commit()
    later = T0 + TTL + 1  # the dead replica never renewed: its slot frees itself
    assert _acquire(db, later, "new") == 0
    assert not run_slots.renew(db, user_key="ada", slot=0, lease="dead-replica", expires_at=1e12)
    assert not run_slots.release(db, user_key="ada", slot=0, lease="dead-replica")
    db.commit()
    assert run_slots.running(db, user_key="ada", now=later) == 2  # "new" and the renewed one


@pytest.fixture
def replicas(engine: Engine) -> list[Engine]:
    """Two engines on the test's database: two replicas' connection pools."""
    second = make_engine(engine.url.render_as_string(hide_password=False))
    yield [engine, second]
    second.dispose()


def test_simultaneous_requests_on_two_replicas_pass_exactly_the_limit(
    replicas: list[Engine],
) -> None:
    def take(session: Session, _i: int) -> bool:
        pace = user_rates.take(session, key="turn:ada", limit=5, window_s=60.0, now=T0)
        return pace.allowed

    assert sum(race(replicas, 12, take)) == 5


def test_simultaneous_runs_on_two_replicas_get_exactly_the_slots(
    replicas: list[Engine],
) -> None:
    def acquire(session: Session, _i: int) -> int | None:
        return run_slots.acquire(
            session, user_key="ada", limit=3, lease=uuid.uuid4().hex, holder="r", conv_id=None,
            now=T0, ttl_s=TTL,
        )  # fmt: skip

    got = [slot for slot in race(replicas, 10, acquire) if slot is not None]
    assert sorted(got) == [0, 1, 2]
