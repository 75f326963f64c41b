"""Maintenance windows: which one is active for an environment."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlmodel import Session

from app.store import maintenance
from app.store.maintenance import MaintenanceActiveError
from app.store.models import Maintenance

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)

WINDOWS: list[Any] = [
    # no window at all
    pytest.param([], False, id="none"),
    # open-ended window (no end time, not ended)
    pytest.param([{"env_id": "prod"}], True, id="open_ended"),
    # end time still in the future
    pytest.param(
        [{"env_id": "prod", "ends_at": NOW + timedelta(minutes=5)}], True, id="ends_later"
    ),
    # end time already passed: no longer active
    pytest.param([{"env_id": "prod", "ends_at": NOW - timedelta(seconds=1)}], False, id="expired"),
    # ended by a person
    pytest.param([{"env_id": "prod", "ended_at": NOW - timedelta(minutes=1)}], False, id="ended"),
    # a window on another environment does not count
    pytest.param([{"env_id": "dev"}], False, id="other_env"),
    # an old ended window plus a new open one: active
    pytest.param(
        [{"env_id": "prod", "ended_at": NOW - timedelta(hours=1)}, {"env_id": "prod"}],
        True,
        id="ended_then_reopened",
    ),
]


@pytest.mark.parametrize(("rows", "active"), WINDOWS)
def test_active_for_follows_end_times(
    db: Session, rows: list[dict[str, Any]], active: bool
) -> None:
    for row in rows:
        db.add(Maintenance(started_by="ops", started_at=NOW - timedelta(hours=2), **row))
    db.commit()
    found = maintenance.active_for(db, env_id="prod", now=NOW)
    assert (found is not None) is active
    assert [m.env_id for m in maintenance.list_active(db, now=NOW)].count("prod") == int(active)


def test_start_and_end_a_window(session: Session) -> None:
    m = maintenance.start(
        session,
        Maintenance(env_id="prod", started_by="alice", reason="upgrade"),
        duration_minutes=30,
        now=NOW,
    )
    assert m.ends_at == NOW + timedelta(minutes=30)
    assert maintenance.active_for(session, env_id="prod", now=NOW) is m
    assert maintenance.active_for(session, env_id="prod", now=NOW + timedelta(minutes=31)) is None
    ended = maintenance.end(session, env_id="prod", ended_by="bob", now=NOW + timedelta(minutes=1))
    assert ended is not None and ended.ended_by == "bob"
    assert maintenance.active_for(session, env_id="prod", now=NOW + timedelta(minutes=2)) is None


def test_second_window_on_same_env_is_refused(session: Session) -> None:
    maintenance.start(session, Maintenance(env_id="prod", started_by="alice"), now=NOW)
    with pytest.raises(MaintenanceActiveError, match="already in maintenance"):
        maintenance.start(session, Maintenance(env_id="prod", started_by="bob"), now=NOW)
    maintenance.start(
        session, Maintenance(env_id="dev", started_by="bob"), now=NOW
    )  # other env is fine


def test_ending_without_a_window_returns_none(session: Session) -> None:
    assert maintenance.end(session, env_id="prod", ended_by="alice") is None


def test_a_window_with_its_own_end_time_closes_then(session: Session) -> None:
    until = datetime(2026, 6, 1, 13, 0)  # naive: read as UTC
    maintenance.start(
        session, Maintenance(env_id="prod", started_by="alice", ends_at=until), now=NOW
    )
    assert maintenance.active_for(session, env_id="prod", now=NOW + timedelta(minutes=59))
    assert maintenance.active_for(session, env_id="prod", now=NOW + timedelta(hours=1)) is None
