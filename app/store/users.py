"""Users of the agent. Passwords arrive already hashed (``app.auth`` hashes them).

Every change of credentials — a new password, a new role, disabling — gives the user a new
``token_stamp``: tokens and page sessions carry the stamp they were
issued under, so the earlier ones stop working (``app.auth.gate``) even when the change
is undone later (re-enabled, the old role back, the account deleted and made again).
"""

from __future__ import annotations

import secrets

from sqlmodel import Session, col, select

from app.errors import SsToolsError
from app.store.models import User
from app.store.rows import saved


class UserExistsError(SsToolsError):
    """A user with this name already exists."""


class UserNotFoundError(SsToolsError):
    """No user with this name."""


def create_user(session: Session, *, username: str, role: str, password_hash: str) -> User:
    name = username.strip()
    if not name:
        raise ValueError("username must not be empty")
    if "#" in name:  # how an IdP identity is named (app.auth.external_ids): never a local one
        raise ValueError("a username cannot hold '#'")
    if not role:
        raise ValueError("role must not be empty")
    if get_user_by_name(session, username=name) is not None:
        raise UserExistsError(f"user '{name}' already exists")
    user = User(username=name, role=role, password_hash=password_hash)
    return saved(session, user)


def get_user_by_name(session: Session, *, username: str) -> User | None:
    return session.exec(select(User).where(col(User.username) == username.strip())).first()


def list_users(session: Session) -> list[User]:
    return [*session.exec(select(User).order_by(col(User.username)))]


def _require(session: Session, username: str) -> User:
    user = get_user_by_name(session, username=username)
    if user is None:
        raise UserNotFoundError(f"no user named '{username}'")
    return user


def new_stamp() -> str:
    return secrets.token_urlsafe(12)


def set_password(session: Session, *, username: str, password_hash: str) -> User:
    user = _require(session, username)
    user.password_hash = password_hash
    user.token_stamp = new_stamp()
    return saved(session, user)


def set_role(session: Session, *, username: str, role: str) -> User:
    if not role:
        raise ValueError("role must not be empty")
    user = _require(session, username)
    if user.role != role:
        user.role, user.token_stamp = role, new_stamp()
    return saved(session, user)


def set_disabled(session: Session, *, username: str, disabled: bool) -> User:
    user = _require(session, username)
    if disabled and not user.disabled:
        user.token_stamp = new_stamp()
    user.disabled = disabled
    return saved(session, user)


def delete_user(session: Session, *, username: str) -> None:
    """Remove the account (its audit rows stay: they name the user, they do not point at
    the row). Its tokens and page sessions stop working at the next check."""
    session.delete(_require(session, username))
    session.flush()


def set_superset_username(
    session: Session, *, username: str, superset_username: str | None
) -> User:
    """Name the Superset account ``username`` acts as on assertion environments (None:
    none). Not a credential: the user's tokens stay valid."""
    user = _require(session, username)
    user.superset_username = superset_username
    return saved(session, user)
