"""The conversation list's row of a turn: one upsert, the same on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Engine
from sqlmodel import Session

from app.store import conversations

EARLY = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
LATER = datetime(2026, 1, 1, 10, 0, tzinfo=UTC)


def _turn(engine: Engine, owner: str, message: str, *, env: str | None, at: datetime) -> bool:
    with engine.begin() as conn:
        return conversations.note_turn(
            conn,
            conv_id="c1",
            owner=owner,
            message=message,
            object_type="dashboard" if env else None,
            env_id=env,
            now=at,
        )


def test_first_turn_creates_the_row_titled_by_the_request(engine: Engine) -> None:
    assert _turn(engine, "alice", "find   dashboards\nabout sales", env="dev", at=EARLY)
    with Session(engine) as s:
        row = conversations.get(s, conv_id="c1")
        assert row is not None
        assert (row.owner, row.title, row.env_id, row.object_type) == (
            "alice",
            "find dashboards about sales",
            "dev",
            "dashboard",
        )
        assert row.created_at == EARLY and row.updated_at == EARLY
        assert not row.pending_confirmation and not row.archived


def test_later_turn_refreshes_context_and_clears_the_badge_but_keeps_the_title(
    engine: Engine,
) -> None:
    _turn(engine, "alice", "first request", env="dev", at=EARLY)
    with Session(engine) as s:
        conversations.note_pending(s, conv_id="c1", owner="alice", pending=True, now=EARLY)
        s.commit()
    assert _turn(engine, "alice", "second request", env=None, at=LATER)
    with Session(engine) as s:
        row = conversations.get(s, conv_id="c1")
        assert row is not None
        assert (row.title, row.env_id, row.object_type) == ("first request", None, None)
        assert row.created_at == EARLY and row.updated_at == LATER
        assert not row.pending_confirmation


def test_another_users_turn_leaves_the_row_alone(engine: Engine) -> None:
    _turn(engine, "alice", "mine", env="dev", at=EARLY)
    assert not _turn(engine, "mallory", "hijack", env="prod", at=LATER)
    with Session(engine) as s:
        row = conversations.get(s, conv_id="c1")
        assert row is not None
        assert (row.owner, row.title, row.env_id, row.updated_at) == ("alice", "mine", "dev", EARLY)


def test_a_change_sets_only_its_given_fields_of_the_owners_row(engine: Engine) -> None:
    _turn(engine, "alice", "first request", env="dev", at=EARLY)
    rename = conversations.ConversationChange(title="  Sales\nhunt ")
    archive = conversations.ConversationChange(archived=True)
    assert (rename.given(), archive.given()) == ({"title": "  Sales\nhunt "}, {"archived": True})
    with Session(engine) as s:
        assert conversations.update(s, conv_id="c1", owner="mallory", change=archive) is None
        conversations.update(s, conv_id="c1", owner="alice", change=rename)
        s.commit()
        row = conversations.get(s, conv_id="c1")
        assert row is not None
        assert (row.title, row.archived, row.updated_at) == ("Sales hunt", False, EARLY)
        conversations.update(s, conv_id="c1", owner="alice", change=archive)
        s.commit()
        assert (row.title, row.archived) == ("Sales hunt", True)
