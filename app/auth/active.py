"""Is the caller behind a valid token still allowed in? (issue 9 item 3: revocation)

A signature proves who a token was issued to, not that the person may still act: every
authenticated request (API bearer tokens, page sessions, in-process doors) passes
:func:`ensure_active`, which checks the users table:

* a local token's user must exist, be enabled and still have the token's role;
* an external (IdP) token's user is refused when a local user of that name is disabled.

Answers are cached for ``settings.revocation_cache_s`` seconds (default 5) per database
and username, so disabling, deleting or re-roling a user ends their tokens and page
sessions within that many seconds on every replica; a change made in this process
(``forget_user``) takes effect at once.
"""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass
from functools import lru_cache

from sqlalchemy.exc import SQLAlchemyError

from app.auth.tokens import Principal, decode_token
from app.errors import AuthError
from app.settings import get_settings
from app.store.db import session_scope
from app.store.users import get_user_by_name

MAX_ENTRIES = 10_000


@dataclass(frozen=True, slots=True)
class UserStatus:
    exists: bool
    disabled: bool = False
    role: str | None = None


class UserStatusCache:
    """username → (status, expiry) per database URL, for ``ttl_s`` seconds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: dict[tuple[str, str], tuple[UserStatus, float]] = {}

    def peek(self, db_url: str, username: str) -> UserStatus | None:
        with self._lock:
            hit = self._entries.get((db_url, username))
        if hit is None or hit[1] <= time.monotonic():
            return None
        return hit[0]

    def put(self, db_url: str, username: str, status: UserStatus, ttl_s: float) -> None:
        if ttl_s <= 0:
            return
        with self._lock:
            if len(self._entries) >= MAX_ENTRIES:
                self._entries.clear()
            self._entries[(db_url, username)] = (status, time.monotonic() + ttl_s)

    def forget(self, username: str | None = None) -> None:
        with self._lock:
            if username is None:
                self._entries.clear()
            else:
                for key in [k for k in self._entries if k[1] == username]:
                    del self._entries[key]


@lru_cache(maxsize=1)
def status_cache() -> UserStatusCache:
    """The process's cache (one, like the engine and the settings)."""
    return UserStatusCache()


def forget_user(username: str | None = None) -> None:
    """Drop cached answers for ``username`` (all users when None)."""
    status_cache().forget(username)


def load_status(username: str) -> UserStatus:
    """Blocking: the user's row as a :class:`UserStatus` (cached)."""
    settings = get_settings()
    try:
        with session_scope() as session:
            user = get_user_by_name(session, username=username)
            status = (
                UserStatus(exists=True, disabled=bool(user.disabled), role=user.role)
                if user is not None
                else UserStatus(exists=False)
            )
    except SQLAlchemyError as exc:
        raise AuthError("user directory unavailable") from exc
    status_cache().put(settings.db_url, username, status, settings.revocation_cache_s)
    return status


def cached_status(username: str) -> UserStatus | None:
    """The cached answer, or None when the database must be asked (no I/O)."""
    return status_cache().peek(get_settings().db_url, username)


def check_status(principal: Principal, status: UserStatus) -> Principal:
    """``principal`` if ``status`` lets it in, else ``AuthError(reason)``."""
    if principal.source == "external":
        if status.exists and status.disabled:
            raise AuthError("user disabled")
        return principal
    if not status.exists:
        raise AuthError("unknown user")
    if status.disabled:
        raise AuthError("user disabled")
    if status.role != principal.role:
        raise AuthError("role changed")
    return principal


def ensure_active(principal: Principal) -> Principal:
    """Blocking on a cache miss: ``principal`` if its user may still act, else
    ``AuthError`` ("unknown user", "user disabled", "role changed")."""
    status = cached_status(principal.user_id) or load_status(principal.user_id)
    return check_status(principal, status)


async def ensure_active_async(principal: Principal) -> Principal:
    """:func:`ensure_active` for the event loop: a cached answer inline, a database read in
    a worker thread."""
    status = cached_status(principal.user_id)
    if status is None:
        status = await asyncio.to_thread(load_status, principal.user_id)
    return check_status(principal, status)


def verify_token(token: str | None) -> Principal:
    """The caller behind ``token``: signature, claims, then :func:`ensure_active`.
    Raises ``AuthError(reason)`` for any defect (blocking on a cache miss)."""
    return ensure_active(decode_token(token))
