"""Confirmations are single use: of two racing confirms exactly one wins."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine
from sqlmodel import Session

from app.store import confirmations
from tests.store.racing import race

# a dangerous delete on prod, waiting for alice's answer
PENDING = dict(
    conv_id="c1",
    user_id="alice",
    tool_name="delete_dashboard",
    call_id="call-1",
    args_hash="h" * 64,
    env_id="prod",
    risk_level="dangerous",
)


def _new(s: Session) -> str:
    row = confirmations.create(s, **PENDING)
    s.commit()
    return row.id


def test_confirmation_is_created_with_an_unguessable_id_and_ttl(session: Session) -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    row = confirmations.create(session, **{**PENDING, "ttl_s": 60, "now": now})
    assert len(row.id) >= 32
    assert row.expires_at == now + timedelta(seconds=60)
    assert (row.used_at, row.decision) == (None, None)
    assert confirmations.get(session, confirmation_id=row.id) is row


def test_mark_used_succeeds_once_then_refuses_replays(db: Session) -> None:
    cid = _new(db)
    assert confirmations.mark_used(db, confirmation_id=cid, decision="confirm") is True
    db.commit()
    assert confirmations.mark_used(db, confirmation_id=cid, decision="confirm") is False
    assert confirmations.mark_used(db, confirmation_id="unknown", decision="deny") is False
    row = confirmations.get(db, confirmation_id=cid)
    assert row is not None and row.decision == "confirm" and row.used_at is not None


def test_two_racing_confirms_have_exactly_one_winner(engine: Engine) -> None:
    with Session(engine) as s:
        cid = _new(s)

    def confirm(s: Session, _: int) -> bool:
        return confirmations.mark_used(s, confirmation_id=cid, decision="confirm")

    results = race([engine], 4, confirm)
    assert sorted(results) == [False, False, False, True]
