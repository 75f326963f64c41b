"""The two caches an :class:`~app.auth.gate.AuthGate` keeps, each bounded
(:data:`MAX_ENTRIES`) and each entry kept until a moment of its own
(:class:`ExpiringMap`):

* **the users' status** (:class:`UserStatusCache`): the answer of the active check, for
  ``revocation_cache_s`` seconds per username;
* **tokens already verified** (:class:`VerifiedTokens`: signature and claims), so a client
  that sends the same token on every request pays for the check once a minute, not every
  time. A token's signature and claims never change; only the clock can end it. An entry
  is kept until the token's own ``exp`` or ``TOKEN_CACHE_S`` from now, whichever comes
  first, so a cached token is never honoured past its expiry, and a key the identity
  provider dropped stops working within ``TOKEN_CACHE_S``. Revocation is not decided
  there: every request still passes :meth:`AuthGate.ensure_active`. Only tokens that
  passed are kept; a bad token is checked (and refused) every time. One cache per auth
  gate (per app).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from app.auth.tokens import Principal

MAX_ENTRIES = 10_000  # entries of each cache at most
TOKEN_CACHE_S = 60.0
V = TypeVar("V")


class ExpiringMap(Generic[V]):
    """key → (value, until): a value is answered until its moment ``until`` by ``clock``;
    bounded (at :data:`MAX_ENTRIES` it starts again empty); thread-safe."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[V, float]] = {}

    def get(self, key: str) -> V | None:
        """The value kept for ``key`` and not yet expired, else None."""
        with self._lock:
            hit = self._entries.get(key)
        if hit is None:
            return None
        if hit[1] <= self.clock():
            with self._lock:
                self._entries.pop(key, None)
            return None
        return hit[0]

    def put(self, key: str, value: V, until: float) -> None:
        """Keep ``value`` for ``key`` until ``until`` (nothing when that has passed)."""
        if until <= self.clock():
            return
        with self._lock:
            if len(self._entries) >= MAX_ENTRIES:
                self._entries.clear()
            self._entries[key] = (value, until)

    def forget(self, key: str | None = None) -> None:
        """Drop ``key``'s entry (every entry when None)."""
        with self._lock:
            if key is None:
                self._entries.clear()
            else:
                self._entries.pop(key, None)


@dataclass(frozen=True, slots=True)
class UserStatus:
    exists: bool
    disabled: bool = False
    role: str | None = None
    stamp: str | None = None  # the user's current token stamp


class UserStatusCache:
    """username → its status, for ``ttl_s`` seconds (one database's users) by ``clock``
    (``time.monotonic``; a test sets a fake one)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self._entries = ExpiringMap[UserStatus](lambda: self.clock())  # a test may swap it

    def peek(self, username: str) -> UserStatus | None:
        return self._entries.get(username)

    def put(self, username: str, status: UserStatus, ttl_s: float) -> None:
        self._entries.put(username, status, self.clock() + ttl_s)

    def forget(self, username: str | None = None) -> None:
        self._entries.forget(username)


class VerifiedTokens:
    """token → principal, until ``min(exp, now + ttl_s)`` (epoch seconds)."""

    def __init__(
        self, ttl_s: float = TOKEN_CACHE_S, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.ttl_s = ttl_s
        self._clock = clock
        self._entries = ExpiringMap[Principal](clock)

    def get(self, token: str) -> Principal | None:
        """The principal of a token verified before and not yet expired, else None."""
        return self._entries.get(token)

    def put(self, token: str, principal: Principal, exp: float) -> None:
        """Keep a token that just passed, until its ``exp`` or ``ttl_s`` from now."""
        self._entries.put(token, principal, min(exp, self._clock() + self.ttl_s))

    def clear(self) -> None:
        self._entries.forget()
