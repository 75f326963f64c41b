"""A user's pace of requests, one row per key (``turn:<user>`` / ``call:<user>``), shared by
every replica through the database.

Each key is a bucket of ``limit`` requests that refills evenly over ``window_s`` (a GCRA
limiter): a burst of ``limit`` passes at once, then one every ``window_s / limit`` seconds.
The row keeps one number, ``tat``: when the bucket is full again (epoch seconds). A request
at ``now`` passes when ``max(tat, now) + window_s / limit`` is at most ``now + window_s``,
and then moves ``tat`` there; a refused request leaves it as it was, so a client that keeps
asking does not push its own wait further out, and the wait it is told is exact.

The decision and the update are one statement (``INSERT … ON CONFLICT (key) DO UPDATE …
RETURNING``, on SQLite and PostgreSQL alike), so simultaneous requests on any replicas are
counted one by one and none slips past the limit. Time is the caller's (``now``): tests
pass a fake clock's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Float, case, delete, literal
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col

from app.store.models import UserRate
from app.store.rows import changed

_TABLE: Any = UserRate.__table__  # type: ignore[attr-defined]  # set by SQLModel
EPSILON_S = 1e-6  # float sums of the interval must not refuse the limit-th request


@dataclass(frozen=True)
class Pace:
    """A request counted: whether it may go on, and if not, how long until it would."""

    allowed: bool
    retry_after_s: float = 0.0


def take(session: Session, *, key: str, limit: int, window_s: float, now: float) -> Pace:
    """Count one request of ``key`` against ``limit`` per ``window_s`` (see the module
    docstring); blocking, one statement whatever other replicas do meanwhile."""
    interval = window_s / limit
    row = _TABLE.c
    at = literal(now, Float())
    start = case((row.tat > at, row.tat), else_=at)
    passes = start + interval <= at + (window_s + EPSILON_S)
    insert = (postgresql if session.get_bind().dialect.name == "postgresql" else sqlite).insert
    stmt = (
        insert(_TABLE)
        .values(key=key, tat=now + interval, allowed=True)
        .on_conflict_do_update(
            index_elements=[row.key],
            set_={"tat": case((passes, start + interval), else_=row.tat), "allowed": passes},
        )
        .returning(row.allowed, row.tat)
    )
    allowed, tat = session.execute(stmt).one()
    if allowed:
        return Pace(True)
    return Pace(False, max(0.0, float(tat) + interval - now - window_s))


def prune(session: Session, *, now: float) -> int:
    """Forget the keys whose bucket is full again (a row then says nothing): how many."""
    return changed(session.execute(delete(UserRate).where(col(UserRate.tat) < now)))
