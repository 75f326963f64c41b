"""A user's slots for running turns, shared by every replica through the database.

A user has ``limit`` slots, numbered ``0 .. limit - 1`` (one ``run_slot`` row each while it
is held). A run takes the first free one (:func:`acquire`): each slot is tried with one
atomic statement, ``INSERT … ON CONFLICT (user_key, slot) DO UPDATE … WHERE the holder's
lease has expired … RETURNING lease``, so two runs racing for the same slot on any replicas
get it once, and a slot whose holder died (its lease not renewed for ``ttl_s``) is taken
over as if it were free. No slot free: the run is refused.

The holder renews its lease while the run goes (:func:`renew`; a run longer than the lease
keeps its slot) and deletes it when the run ends (:func:`release`). Both name the lease, so a
holder that lost its slot to a takeover (it stalled past its expiry) can neither renew nor
free the new holder's. Time is the caller's (epoch seconds): tests pass a fake clock's.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col

from app.store.models import RunSlot
from app.store.rows import changed

_TABLE: Any = RunSlot.__table__  # type: ignore[attr-defined]  # set by SQLModel


def acquire(
    session: Session,
    *,
    user_key: str,
    limit: int,
    lease: str,
    holder: str,
    conv_id: str | None,
    now: float,
    ttl_s: float,
) -> int | None:
    """Take the first free (or expired) slot of ``user_key`` for ``lease``: its number, or
    None when all ``limit`` are held. Blocking."""
    row = _TABLE.c
    insert = (postgresql if session.get_bind().dialect.name == "postgresql" else sqlite).insert
    values = {"lease": lease, "holder": holder, "conv_id": conv_id, "expires_at": now + ttl_s}
    for slot in range(limit):
        stmt = (
            insert(_TABLE)
            .values(user_key=user_key, slot=slot, **values)
            .on_conflict_do_update(
                index_elements=[row.user_key, row.slot],
                set_=values,
                where=row.expires_at <= now,
            )
            .returning(row.lease)
        )
        taken = session.execute(stmt).first()
        if taken is not None and taken[0] == lease:
            return slot
    return None


def _held(user_key: str, slot: int, lease: str) -> Any:
    return and_(
        col(RunSlot.user_key) == user_key, col(RunSlot.slot) == slot, col(RunSlot.lease) == lease
    )


def renew(session: Session, *, user_key: str, slot: int, lease: str, expires_at: float) -> bool:
    """Push the lease's expiry to ``expires_at``; False when the slot is no longer its own."""
    stmt = update(RunSlot).where(_held(user_key, slot, lease)).values(expires_at=expires_at)
    return changed(session.execute(stmt)) > 0


def release(session: Session, *, user_key: str, slot: int, lease: str) -> bool:
    """Free the slot, if it is still the lease's (False: it was taken over meanwhile)."""
    return changed(session.execute(delete(RunSlot).where(_held(user_key, slot, lease)))) > 0


def running(session: Session, *, user_key: str, now: float) -> int:
    """How many of the user's slots are held by a live lease."""
    stmt = (
        select(func.count())
        .select_from(RunSlot)
        .where(col(RunSlot.user_key) == user_key, col(RunSlot.expires_at) > now)
    )
    return int(session.execute(stmt).scalar_one())
