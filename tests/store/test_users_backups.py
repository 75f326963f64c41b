"""Users and the backup catalog."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from app.store import backups, users
from app.store.models import Backup
from app.store.users import UserExistsError, UserNotFoundError


def test_user_is_created_listed_and_updated(session: Session) -> None:
    u = users.create_user(session, username=" alice ", role="admin", password_hash="h1")
    users.create_user(session, username="bob", role="analyst", password_hash="h2")
    assert u.username == "alice" and not u.disabled
    assert users.get_user_by_name(session, username="alice") is u
    assert [x.username for x in users.list_users(session)] == ["alice", "bob"]
    users.set_password(session, username="alice", password_hash="h3")
    users.set_disabled(session, username="bob", disabled=True)
    users.set_role(session, username="bob", role="admin")
    assert u.password_hash == "h3"
    bob = users.get_user_by_name(session, username="bob")
    assert bob is not None and bob.disabled and bob.role == "admin"


@pytest.mark.parametrize(
    ("action", "error"),
    [
        # the name is unique
        (
            lambda s: users.create_user(s, username="alice", role="admin", password_hash="x"),
            UserExistsError,
        ),
        # changing an unknown user's password is an error, not a silent no-op
        (lambda s: users.set_password(s, username="nobody", password_hash="x"), UserNotFoundError),
        # an empty name is refused
        (
            lambda s: users.create_user(s, username="  ", role="admin", password_hash="x"),
            ValueError,
        ),
    ],
)
def test_user_edge_cases_raise(session: Session, action, error) -> None:  # type: ignore[no-untyped-def]
    users.create_user(session, username="alice", role="admin", password_hash="h")
    with pytest.raises(error):
        action(session)


def test_backups_are_listed_newest_first_and_by_dashboard(db: Session) -> None:
    a = backups.add(
        db,
        Backup(
            env_id="dev",
            path="/b/a.zip",
            created_by="alice",
            dashboard_ids=["1", "2"],
            size_bytes=10,
        ),
    )
    b = backups.add(db, Backup(env_id="dev", path="/b/b.zip", created_by="alice"))
    c = backups.add(
        db,
        Backup(
            id="fixed-id",
            env_id="prod",
            path="/b/c.zip",
            created_by="bob",
            dashboard_ids=[3],
            task_id="t1",
        ),
    )
    db.commit()
    assert c.id == "fixed-id" and c.dashboard_ids == ["3"]
    assert {x.id for x in backups.list(db, env_id="dev")} == {a.id, b.id}
    assert {x.id for x in backups.list(db, dashboard_id="2")} == {a.id, b.id}  # b holds all
    assert [x.id for x in backups.list(db, env_id="prod", dashboard_id="3")] == ["fixed-id"]
    assert backups.get(db, backup_id="fixed-id") is c
    assert backups.get(db, backup_id="missing") is None
