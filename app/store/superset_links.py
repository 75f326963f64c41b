"""Linked Superset accounts: one row per (ss-tools user, environment).

A link is what a person's sign-in to Superset left (``app.superset.accounts``): their
Superset username and the refresh token Superset issued, sealed (``app.superset.sealing``;
never the password). Rows live in the database, so every replica serves them.

Writes are single statements, so replicas racing never lose or roll back a link:

* :func:`save_link` inserts or replaces a user's link of an environment, but never with an
  older one (``linked_at`` only moves forward: a slow sign-in finishing after a newer one
  does not overwrite it);
* :func:`expire_link` marks a link dead (Superset refused its refresh token: the account
  was deactivated, or the token's 30 days ran out) only while it is still the same link
  (``generation``): a replica that saw an old token fail never touches a newer link. The
  sealed token is dropped with it.

Superset's refresh does not rotate the refresh token, so a refresh writes nothing here:
two replicas refreshing at once both get a working access token from the same link.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Text, delete, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Field, Session, SQLModel, col, select

from app.store.columns import UTCDateTime, utcnow
from app.store.rows import changed


def new_generation() -> str:
    return uuid.uuid4().hex


class SupersetLink(SQLModel, table=True):
    """A person's link to their Superset account on one environment."""

    __tablename__ = "superset_link"

    user_id: str = Field(primary_key=True)
    env_id: str = Field(primary_key=True)
    superset_username: str
    sealed_token: str | None = Field(default=None, sa_type=Text)  # None once expired
    generation: str = Field(default_factory=new_generation)
    linked_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    expires_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    expired_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    expired_reason: str | None = Field(default=None, sa_type=Text)

    @property
    def active(self) -> bool:
        return self.expired_at is None and self.sealed_token is not None


_TABLE: Any = SupersetLink.__table__  # type: ignore[attr-defined]  # set by SQLModel


def save_link(session: Session, link: SupersetLink) -> bool:
    """Insert ``link``, or replace the user's link of that environment when it is not
    newer than ``link``; True when ``link`` is now stored (one statement)."""
    values = {c.name: getattr(link, c.name) for c in _TABLE.columns}
    insert = (postgresql if session.get_bind().dialect.name == "postgresql" else sqlite).insert
    stmt = insert(_TABLE).values(**values)
    replaced = {k: stmt.excluded[k] for k in values if k not in ("user_id", "env_id")}
    stmt = stmt.on_conflict_do_update(
        index_elements=[_TABLE.c.user_id, _TABLE.c.env_id],
        set_=replaced,
        where=_TABLE.c.linked_at <= stmt.excluded.linked_at,
    ).returning(_TABLE.c.generation)
    return session.execute(stmt).first() is not None  # a row: inserted, or replaced


def get_link(session: Session, *, user_id: str, env_id: str) -> SupersetLink | None:
    return session.get(SupersetLink, (user_id, env_id))


def list_links(session: Session, *, user_id: str | None = None) -> list[SupersetLink]:
    """The links of ``user_id`` (every user's when None), by user then environment."""
    stmt = select(SupersetLink)
    if user_id is not None:
        stmt = stmt.where(col(SupersetLink.user_id) == user_id)
    stmt = stmt.order_by(col(SupersetLink.user_id), col(SupersetLink.env_id))
    return list(session.exec(stmt))


def delete_link(session: Session, *, user_id: str, env_id: str) -> bool:
    """Forget the link; True when there was one."""
    stmt = delete(SupersetLink).where(
        col(SupersetLink.user_id) == user_id, col(SupersetLink.env_id) == env_id
    )
    return changed(session.execute(stmt)) > 0


def expire_link(
    session: Session,
    *,
    user_id: str,
    env_id: str,
    generation: str,
    reason: str,
    now: datetime | None = None,
) -> bool:
    """Mark the link of ``generation`` expired (its sealed token dropped); True when this
    call did it (False: already expired, replaced by a newer link, or gone)."""
    live = col(SupersetLink.expired_at).is_(None)
    values = {"expired_at": now or utcnow(), "expired_reason": reason[:500], "sealed_token": None}
    return _changed_link(session, user_id, env_id, generation, live, values)


def reseal(session: Session, *, user_id: str, env_id: str, generation: str, token: str) -> bool:
    """Store ``token`` (the same secret sealed with the newest key) on the link of
    ``generation``; True when it was still that link."""
    sealed = col(SupersetLink.sealed_token).is_not(None)
    return _changed_link(session, user_id, env_id, generation, sealed, {"sealed_token": token})


def _changed_link(
    session: Session,
    user_id: str,
    env_id: str,
    generation: str,
    condition: ColumnElement[bool],
    values: dict[str, Any],
) -> bool:
    """Set ``values`` on the user's link of ``env_id`` while it is of ``generation`` and
    ``condition`` holds; True when it did (one UPDATE)."""
    stmt = update(SupersetLink).where(
        col(SupersetLink.user_id) == user_id,
        col(SupersetLink.env_id) == env_id,
        col(SupersetLink.generation) == generation,
        condition,
    )
    return changed(session.execute(stmt.values(**values))) > 0
