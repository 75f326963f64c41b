"""Is the caller behind a valid token still allowed in? (issue 9 item 3: revocation)

A signature proves who a token was issued to, not that the person may still act: every
authenticated request (API bearer tokens, page sessions, in-process doors) passes
:meth:`app.auth.gate.AuthGate.ensure_active`, which checks the users table:

* a local token's user must exist, be enabled, still have the token's role and still
  have the token stamp it was issued under (a password change, a new role, disabling —
  each gives the user a new stamp, so a token from before is refused even after the
  change is undone: issue 23 item 9);
* an external (IdP) token's user is refused when a local user of that name is disabled.

Answers are cached (:class:`UserStatusCache`, one per app's gate) for
``settings.revocation_cache_s`` seconds (default 5) per username, so a change of
credentials (password, role, disable, delete) ends the user's tokens and page sessions
within that many seconds on every replica; a change made in this process
(``forget_user``) takes effect at once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.exc import SQLAlchemyError

from app.auth.tokens import Principal
from app.errors import AuthError
from app.store.db import Database
from app.store.users import get_user_by_name

MAX_ENTRIES = 10_000


@dataclass(frozen=True, slots=True)
class UserStatus:
    exists: bool
    disabled: bool = False
    role: str | None = None
    stamp: str | None = None  # the user's current token stamp


class UserStatusCache:
    """username → (status, expiry), for ``ttl_s`` seconds (one database's users) by
    ``clock`` (``time.monotonic``; a test sets a fake one)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[UserStatus, float]] = {}

    def peek(self, username: str) -> UserStatus | None:
        with self._lock:
            hit = self._entries.get(username)
        if hit is None or hit[1] <= self.clock():
            return None
        return hit[0]

    def put(self, username: str, status: UserStatus, ttl_s: float) -> None:
        if ttl_s <= 0:
            return
        with self._lock:
            if len(self._entries) >= MAX_ENTRIES:
                self._entries.clear()
            self._entries[username] = (status, self.clock() + ttl_s)

    def forget(self, username: str | None = None) -> None:
        with self._lock:
            if username is None:
                self._entries.clear()
            else:
                self._entries.pop(username, None)


def load_status(db: Database, username: str) -> UserStatus:
    """Blocking: the user's row as a :class:`UserStatus` (uncached)."""
    try:
        with db.session() as session:
            user = get_user_by_name(session, username=username)
            return (
                UserStatus(
                    exists=True,
                    disabled=bool(user.disabled),
                    role=user.role,
                    stamp=user.token_stamp,
                )
                if user is not None
                else UserStatus(exists=False)
            )
    except SQLAlchemyError as exc:
        raise AuthError("user directory unavailable") from exc


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
    if status.stamp != principal.stamp:
        raise AuthError("credentials changed")
    return principal
