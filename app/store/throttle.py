"""Counters of failed sign-ins, one row per key (``user:<name>`` / ``client:<address>``).

A key's failures are forgotten after ``window_s`` seconds without a failure. Once a key
has ``limit`` failures it is blocked: ``backoff_s`` for the first block, doubling with
each further failure, at most ``backoff_max_s``. The rows live in the database, so every
replica sees the same counters (PostgreSQL locks the row while it is counted).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from app.store.models import LoginThrottle, as_utc

STALE_AFTER = timedelta(days=1)


@dataclass(frozen=True)
class Limits:
    limit: int
    window_s: float
    backoff_s: float
    backoff_max_s: float


@dataclass(frozen=True)
class Counted:
    """One failure counted: the key's total, whether it opened a new window (the count
    of the window it closed), and the block it caused (seconds, 0 = none)."""

    failures: int
    new_window: bool
    earlier_failures: int
    blocked_s: float


def blocked_for(session: Session, *, keys: list[str], now: datetime) -> float:
    """Seconds until every one of ``keys`` may try again (0 when none is blocked)."""
    rows = session.exec(select(LoginThrottle).where(col(LoginThrottle.key).in_(keys)))
    waits = [
        (as_utc(r.blocked_until) - now).total_seconds()
        for r in rows
        if r.blocked_until is not None and as_utc(r.blocked_until) > now
    ]
    return max(waits, default=0.0)


def _row(session: Session, key: str, now: datetime) -> LoginThrottle:
    row = session.get(LoginThrottle, key, with_for_update=True)
    if row is not None:
        return row
    try:
        with session.begin_nested():
            row = LoginThrottle(key=key, window_start=now, failures=0, updated_at=now)
            session.add(row)
    except IntegrityError:  # another replica inserted it first: count on its row
        row = session.get(LoginThrottle, key, with_for_update=True, populate_existing=True)
        assert row is not None
    return row


def count_failure(session: Session, *, key: str, limits: Limits, now: datetime) -> Counted:
    row = _row(session, key, now)
    earlier = 0
    new_window = row.failures == 0
    if row.failures and (now - as_utc(row.updated_at)).total_seconds() > limits.window_s:
        earlier, new_window = row.failures, True
        row.failures, row.window_start, row.blocked_until = 0, now, None
    row.failures += 1
    row.updated_at = now
    blocked = 0.0
    if row.failures >= limits.limit:
        blocked = min(limits.backoff_max_s, limits.backoff_s * 2 ** (row.failures - limits.limit))
        row.blocked_until = now + timedelta(seconds=blocked)
    session.add(row)
    session.flush()
    return Counted(row.failures, new_window, earlier, blocked)


def clear(session: Session, *, key: str) -> None:
    """Forget a key's failures (a successful sign-in clears its username's counter)."""
    session.execute(delete(LoginThrottle).where(col(LoginThrottle.key) == key))


def prune(session: Session, *, now: datetime) -> None:
    """Drop counters idle for a day (unblocked), so sprayed usernames do not pile up."""
    session.execute(
        delete(LoginThrottle)
        .where(col(LoginThrottle.updated_at) < now - STALE_AFTER)
        .where(
            col(LoginThrottle.blocked_until).is_(None) | (col(LoginThrottle.blocked_until) < now)
        )
    )
