"""Counters of sign-in attempts, one row per key (``user:<name>`` / ``client:<address>``).

Every attempt is counted BEFORE its password is checked, by one atomic statement per key
(a read-then-write would let 16 simultaneous wrong passwords all be checked, and lose
updates): an insert-or-increment (``INSERT … ON CONFLICT (key) DO UPDATE SET
failures = failures + 1 … RETURNING``) on SQLite and PostgreSQL alike. The same statement
decides, from the row as it was, whether this attempt may check a password:

* a key whose block is still running refuses the attempt (it is counted all the same);
* otherwise the attempt may go on, and when it is the ``limit``-th (or later) in the
  window it starts a block of ``backoff_s`` (doubling with each further attempt, at most
  ``backoff_max_s``) at once, so no simultaneous attempt gets past it while its password
  is being checked.

A success clears its username's counter and gives its client back the one attempt it
counted. A key's attempts are forgotten after ``window_s`` seconds without one. The rows
live in the database, so every replica sees the same counters.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, and_, case, delete, literal, not_, null, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col

from app.store.columns import UTCDateTime, as_utc
from app.store.models import LoginThrottle

STALE_AFTER = timedelta(days=1)
MAX_DOUBLINGS = 32
_TABLE: Any = LoginThrottle.__table__  # type: ignore[attr-defined]  # set by SQLModel


@dataclass(frozen=True)
class Limits:
    limit: int
    window_s: float
    backoff_s: float
    backoff_max_s: float

    def block_s(self, attempts: int) -> float:
        """How long the ``attempts``-th attempt of a window blocks the key (0: not yet)."""
        if attempts < self.limit:
            return 0.0
        return min(self.backoff_max_s, self.backoff_s * 2 ** min(attempts - self.limit, 64))


@dataclass(frozen=True)
class Attempt:
    """One attempt counted: whether it may check a password, the key's count in this
    window (this attempt included), the count of the window it closed (0: none), and
    until when the key is blocked (None: not)."""

    allowed: bool
    failures: int
    earlier_failures: int
    blocked_until: datetime | None

    @property
    def new_window(self) -> bool:
        return self.failures == 1

    def retry_after_s(self, now: datetime) -> float:
        if self.blocked_until is None:
            return 0.0
        return max(0.0, (as_utc(self.blocked_until) - now).total_seconds())


def _at(moment: datetime) -> ColumnElement[Any]:
    return literal(moment, UTCDateTime())


def _block_until(count: ColumnElement[Any], limits: Limits, now: datetime) -> Any:
    """``now`` + the block of the ``count``-th attempt, as SQL (NULL below the limit)."""
    whens: list[tuple[Any, Any]] = [(count < limits.limit, null())]
    k = 0
    while k < MAX_DOUBLINGS and limits.backoff_s * 2**k < limits.backoff_max_s:
        until = now + timedelta(seconds=limits.block_s(limits.limit + k))
        whens.append((count == limits.limit + k, _at(until)))
        k += 1
    return case(*whens, else_=_at(now + timedelta(seconds=limits.backoff_max_s)))


def count_attempt(session: Session, *, key: str, limits: Limits, now: datetime) -> Attempt:
    """Count one attempt of ``key`` atomically and say whether it may go on (see the
    module docstring). Blocking; one statement, whatever other replicas do meanwhile."""
    row = _TABLE.c
    active = and_(row.blocked_until.is_not(None), row.blocked_until > now)
    expired = and_(row.updated_at < now - timedelta(seconds=limits.window_s), not_(active))
    count = case((expired, 1), else_=row.failures + 1)
    first = limits.block_s(1)  # a limit of 1: the very first attempt blocks the key
    insert = (postgresql if session.get_bind().dialect.name == "postgresql" else sqlite).insert
    stmt = (
        insert(_TABLE)
        .values(
            key=key,
            window_start=now,
            failures=1,
            blocked_until=now + timedelta(seconds=first) if first else None,
            allowed=True,
            closed_failures=0,
            updated_at=now,
        )
        .on_conflict_do_update(
            index_elements=[row.key],
            set_={
                "failures": count,
                "window_start": case((expired, _at(now)), else_=row.window_start),
                "closed_failures": case((expired, row.failures), else_=0),
                "allowed": not_(active),
                "blocked_until": case(
                    (active, row.blocked_until), else_=_block_until(count, limits, now)
                ),
                "updated_at": now,
            },
        )
        .returning(row.allowed, row.failures, row.closed_failures, row.blocked_until)
    )
    allowed, failures, earlier, blocked = session.execute(stmt).one()
    blocked_at = as_utc(blocked) if blocked is not None else None
    return Attempt(bool(allowed), int(failures), int(earlier), blocked_at)


def refund(session: Session, *, key: str, limits: Limits) -> None:
    """Give back one counted attempt (a client's successful sign-in); a block the key no
    longer earns ends."""
    row = _TABLE.c
    session.execute(
        update(_TABLE)
        .where(row.key == key)
        .values(
            failures=case((row.failures > 0, row.failures - 1), else_=0),
            blocked_until=case((row.failures - 1 < limits.limit, null()), else_=row.blocked_until),
        )
    )


def clear(session: Session, *, key: str) -> None:
    """Forget a key's attempts (a successful sign-in clears its username's counter)."""
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
