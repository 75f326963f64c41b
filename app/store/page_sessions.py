"""Server-side sessions of the pages and one-time sign-in tickets (a browser id planted
before sign-in, or a copied storage file, is worth nothing).

A browser is known by NiceGUI's browser id (the signed ``session`` cookie). The page
never stores a token: a signed-in browser is a :class:`PageSession` row keyed by the
SHA-256 of its browser id. Signing in goes through a ticket: the login form (a websocket
event, which cannot set cookies) creates a short-lived ticket bound to the browser that
signed in; ``/login/complete`` redeems it once, gives the browser a fresh id and opens
the session for that new id only. A browser id planted before sign-in therefore never
becomes signed in, and an ended session's id is worthless.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from sqlalchemy import update
from sqlmodel import Session, col, select

from app.store.columns import utcnow
from app.store.models import PageSession
from app.store.rows import changed

TICKET_TTL_S = 60


def key_hash(value: str, *, kind: str) -> str:
    return hashlib.sha256(f"{kind}:{value}".encode()).hexdigest()


def create_ticket(
    session: Session,
    *,
    username: str,
    role: str,
    browser_id: str | None,
    now: datetime | None,
    stamp: str | None = None,
) -> str:
    """A one-time sign-in ticket for ``username`` (valid for 60 s, only from the browser
    whose id is ``browser_id``; ``stamp``: the user's token stamp the password was checked
    under). Returns the ticket; only its hash is stored."""
    now = now or utcnow()
    ticket = secrets.token_urlsafe(32)
    session.add(
        PageSession(
            key_hash=key_hash(ticket, kind="ticket"),
            kind="ticket",
            username=username,
            role=role,
            bound_to=key_hash(browser_id, kind="browser") if browser_id else None,
            created_at=now,
            expires_at=now + timedelta(seconds=TICKET_TTL_S),
            stamp=stamp,
        )
    )
    session.flush()
    return ticket


def redeem_ticket(
    session: Session, *, ticket: str, browser_id: str | None, now: datetime | None = None
) -> tuple[str, str, str | None] | None:
    """(username, role, stamp) of a valid ticket, spent by this call; None when it is
    unknown, expired, already used or presented by another browser."""
    now = now or utcnow()
    hashed = key_hash(ticket, kind="ticket")
    row = session.get(PageSession, hashed)
    bound = key_hash(browser_id, kind="browser") if browser_id else None
    if row is None or row.kind != "ticket" or row.bound_to != bound:
        return None
    spent = session.execute(
        update(PageSession)
        .where(col(PageSession.key_hash) == hashed)
        .where(col(PageSession.ended_at).is_(None))
        .where(col(PageSession.expires_at) > now)
        .values(ended_at=now)
        .execution_options(synchronize_session="fetch")
    )
    if changed(spent) != 1:
        return None
    return row.username, row.role, row.stamp


def open_session(
    session: Session,
    *,
    browser_id: str,
    username: str,
    role: str,
    ttl_s: int,
    now: datetime | None = None,
    stamp: str | None = None,
) -> None:
    """Open the session of ``browser_id`` for ``username`` under the token ``stamp`` it
    signed in with: a later change of credentials ends it (``app.pages.session``)."""
    now = now or utcnow()
    hashed = key_hash(browser_id, kind="browser")
    existing = session.get(PageSession, hashed)
    if existing is not None:
        session.delete(existing)
        session.flush()
    session.add(
        PageSession(
            key_hash=hashed,
            kind="session",
            username=username,
            role=role,
            created_at=now,
            expires_at=now + timedelta(seconds=ttl_s),
            stamp=stamp,
        )
    )
    session.flush()


def find_session(session: Session, *, browser_id: str) -> PageSession | None:
    """The session row of this browser id, ended or not (None when it never signed in)."""
    row = session.get(PageSession, key_hash(browser_id, kind="browser"))
    return row if row is not None and row.kind == "session" else None


def is_live(row: PageSession, now: datetime | None = None) -> bool:
    return row.ended_at is None and row.expires_at > (now or utcnow())


def end_session(session: Session, *, browser_id: str, now: datetime | None = None) -> bool:
    result = session.execute(
        update(PageSession)
        .where(col(PageSession.key_hash) == key_hash(browser_id, kind="browser"))
        .where(col(PageSession.ended_at).is_(None))
        .values(ended_at=now or utcnow())
        .execution_options(synchronize_session="fetch")
    )
    return changed(result) > 0


def end_user_sessions(session: Session, *, username: str, now: datetime | None = None) -> int:
    """End every open page session and ticket of ``username`` (disable, delete, new role)."""
    result = session.execute(
        update(PageSession)
        .where(col(PageSession.username) == username)
        .where(col(PageSession.ended_at).is_(None))
        .values(ended_at=now or utcnow())
        .execution_options(synchronize_session="fetch")
    )
    return changed(result)


def live_sessions(session: Session, *, username: str) -> list[PageSession]:
    now = utcnow()
    rows = session.exec(
        select(PageSession)
        .where(col(PageSession.username) == username)
        .where(col(PageSession.kind) == "session")
        .where(col(PageSession.ended_at).is_(None))
    )
    return [r for r in rows if r.expires_at > now]
