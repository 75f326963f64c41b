"""Pending confirmations of guarded and dangerous tool calls. Each one is single use:
``mark_used`` is a conditional UPDATE, so of two racing confirms exactly one wins."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session, col

from app.store.columns import as_utc, utcnow
from app.store.models import Confirmation
from app.store.rows import changed, moment_of, new_row

DEFAULT_TTL_S = 600.0


def create(
    session: Session,
    *,
    conv_id: str,
    user_id: str,
    tool_name: str,
    call_id: str,
    args_hash: str,
    risk_level: str,
    countdown_s: int = 0,
    env_id: str | None = None,
    expires_at: datetime | None = None,
    ttl_s: float = DEFAULT_TTL_S,
    now: datetime | None = None,
) -> Confirmation:
    """A new pending confirmation; it expires at ``expires_at`` or after ``ttl_s``
    (the caller passes ``Settings.confirmation_ttl_s``)."""
    moment = moment_of(now)
    if expires_at is None:
        expires_at = moment + timedelta(seconds=ttl_s)
    return new_row(
        session,
        Confirmation,
        conv_id=conv_id,
        user_id=user_id,
        tool_name=tool_name,
        call_id=call_id,
        args_hash=args_hash,
        env_id=env_id,
        risk_level=risk_level,
        countdown_s=countdown_s,
        created_at=moment,
        sent_at=moment,
        expires_at=as_utc(expires_at),
    )


def get(session: Session, *, confirmation_id: str) -> Confirmation | None:
    return session.get(Confirmation, confirmation_id)


def mark_sent(session: Session, *, confirmation_id: str) -> None:
    """The card left the server now (a dangerous call's countdown starts); a used
    confirmation is left as it is."""
    stmt = (
        update(Confirmation)
        .where(col(Confirmation.id) == confirmation_id, col(Confirmation.used_at).is_(None))
        .values(sent_at=utcnow())
        .execution_options(synchronize_session="fetch")
    )
    session.execute(stmt)


def mark_used(
    session: Session,
    *,
    confirmation_id: str,
    decision: str,
    edited_args_hash: str | None = None,
) -> bool:
    """Record the decision once. True only for the caller whose UPDATE changed the row;
    a replay or a concurrent second confirm gets False. ``edited_args_hash``: the hash of
    the arguments a person edited before confirming (the run is bound to them)."""
    stmt = (
        update(Confirmation)
        .where(col(Confirmation.id) == confirmation_id, col(Confirmation.used_at).is_(None))
        .values(used_at=utcnow(), decision=decision, edited_args_hash=edited_args_hash)
        .execution_options(synchronize_session="fetch")
    )
    return changed(session.execute(stmt)) == 1
