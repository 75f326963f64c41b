"""Links live in the database: every write is one statement, so two replicas racing never
put an older link over a newer one, and an old link's failure never ends a newer link
(SQLite and PostgreSQL: the ``engine`` fixture runs each test on both)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine

from app.store import superset_links as store
from app.store.db import Database
from app.store.models import utcnow


def _link(user: str = "ann", env: str = "dev", **kw: object) -> store.SupersetLink:
    fields: dict[str, object] = {"sealed_token": "t", **kw}
    return store.SupersetLink(user_id=user, env_id=env, superset_username=user, **fields)


def test_a_newer_link_replaces_and_an_older_one_never_does(engine: Engine) -> None:
    db = Database(engine)
    now = utcnow()
    newer = _link(linked_at=now, sealed_token="new")
    older = _link(linked_at=now - timedelta(seconds=5), sealed_token="old")
    with db.session() as s:
        assert store.save_link(s, newer)
        assert not store.save_link(s, older)  # a slow sign-in that finished last
        assert store.get_link(s, user_id="ann", env_id="dev").sealed_token == "new"
        assert store.save_link(s, _link(linked_at=now + timedelta(seconds=1), sealed_token="3"))
        assert store.get_link(s, user_id="ann", env_id="dev").sealed_token == "3"


def test_an_expired_generation_never_ends_the_link_that_replaced_it(engine: Engine) -> None:
    db = Database(engine)
    first = _link(linked_at=utcnow() - timedelta(seconds=1))
    with db.session() as s:
        store.save_link(s, first)
        second = _link(linked_at=utcnow(), sealed_token="t2")
        store.save_link(s, second)
        # a replica refreshing with the first link's token learns it was refused
        assert not store.expire_link(
            s, user_id="ann", env_id="dev", generation=first.generation, reason="401"
        )
        row = store.get_link(s, user_id="ann", env_id="dev")
        assert row.active and row.generation == second.generation
        assert store.expire_link(
            s, user_id="ann", env_id="dev", generation=second.generation, reason="deactivated"
        )
        row = store.get_link(s, user_id="ann", env_id="dev")
        assert not row.active and row.sealed_token is None and row.expired_reason == "deactivated"
        # expiring twice (two replicas) changes nothing the second time
        assert not store.expire_link(
            s, user_id="ann", env_id="dev", generation=second.generation, reason="again"
        )


def test_links_are_per_person_and_environment_and_unlink_forgets(engine: Engine) -> None:
    db = Database(engine)
    with db.session() as s:
        for user, env in (("ann", "dev"), ("ann", "prod"), ("bob", "dev")):
            store.save_link(s, _link(user, env))
        assert [(r.user_id, r.env_id) for r in store.list_links(s, user_id="ann")] == [
            ("ann", "dev"), ("ann", "prod"),
        ]  # fmt: skip
        assert store.delete_link(s, user_id="ann", env_id="dev")
        assert not store.delete_link(s, user_id="ann", env_id="dev")
        assert store.get_link(s, user_id="bob", env_id="dev") is not None
