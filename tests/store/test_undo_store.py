"""Undoable changes: one undo at a time (racing undos, one winner on either database), a
failed undo opens the change again, an expired or undone one cannot be taken, and the
audit page learns who undid what."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from app.store import undo
from app.store.undo import UndoRecord
from tests.store.racing import race

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def _new(s: Session, audit_id: str = "a-1") -> str:
    row = UndoRecord(
        kind="end_window", tool_name="start_maintenance", env_id="prod", user_id="alice",
        audit_id=audit_id, created_at=NOW, expires_at=NOW + timedelta(days=7),
    )  # fmt: skip
    undo.add(s, row)
    s.commit()
    return row.id


def test_racing_undos_have_exactly_one_winner(engine: Engine) -> None:
    with Session(engine) as s:
        undo_id = _new(s)

    def claim(s: Session, i: int) -> bool:
        return undo.claim(s, undo_id=undo_id, by=f"admin{i}", now=NOW)

    results = race([engine], 4, claim)
    assert sorted(results) == [False, False, False, True]


@pytest.mark.parametrize(
    ("after", "why"),
    [
        (None, None),  # open and within its retention: it can be undone
        ("claim", "running"),  # an undo of it runs now (on any replica)
        ("finish", "undone"),  # undone already: never twice
        ("release", None),  # the undo failed: open again (its next one checks drift first)
    ],
)
def test_what_a_change_allows_after_each_step(db: Session, after: str | None, why: str) -> None:
    undo_id = _new(db)
    undo.claim(db, undo_id=undo_id, by="bob", now=NOW) if after else None
    if after == "finish":
        undo.finish(db, undo_id=undo_id, now=NOW)
    elif after == "release":
        undo.release(db, undo_id=undo_id)
    db.commit()
    record = undo.get(db, undo_id=undo_id)
    db.refresh(record)
    assert undo.why_not(record, NOW) == why
    assert undo.available(db, undo_ids=[undo_id], now=NOW) == (set() if why else {undo_id})


def test_an_expired_change_cannot_be_claimed(db: Session) -> None:
    undo_id = _new(db)
    later = NOW + timedelta(days=7, seconds=1)
    assert undo.why_not(undo.get(db, undo_id=undo_id), later) == "expired"
    assert not undo.claim(db, undo_id=undo_id, by="bob", now=later)
    assert undo.why_not(None) == "unknown"


def test_the_audit_page_learns_who_undid_an_execution(db: Session) -> None:
    done, left = _new(db), _new(db, audit_id="a-2")
    undo.claim(db, undo_id=done, by="bob", now=NOW)
    undo.finish(db, undo_id=done, now=NOW)
    undo.claim(db, undo_id=left, by="carol", now=NOW)  # still running: not undone yet
    db.commit()
    assert undo.undone_for_audit(db, audit_ids=["a-1", "a-2", "a-3"]) == {"a-1": ("bob", NOW)}
