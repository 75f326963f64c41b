"""Tokens already verified (signature and claims), so a client that sends the same token
on every request pays for the check once a minute, not every time.

A token's signature and claims never change; only the clock can end it. An entry is kept
until the token's own ``exp`` or ``TOKEN_CACHE_S`` from now, whichever comes first, so a
cached token is never honoured past its expiry, and a key the identity provider dropped
stops working within ``TOKEN_CACHE_S``. Revocation is not decided here: every request
still passes :meth:`app.auth.gate.AuthGate.ensure_active` (the users table, cached
``revocation_cache_s``). Only tokens that passed are kept; a bad token is checked (and
refused) every time. One cache per auth gate (per app); bounded.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from app.auth.tokens import Principal

TOKEN_CACHE_S = 60.0
MAX_ENTRIES = 10_000


class VerifiedTokens:
    """token → (principal, until) with ``until = min(exp, now + ttl_s)`` (epoch seconds)."""

    def __init__(
        self, ttl_s: float = TOKEN_CACHE_S, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.ttl_s = ttl_s
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: dict[str, tuple[Principal, float]] = {}

    def get(self, token: str) -> Principal | None:
        """The principal of a token verified before and not yet expired, else None."""
        with self._lock:
            hit = self._entries.get(token)
        if hit is None:
            return None
        if hit[1] <= self._clock():
            with self._lock:
                self._entries.pop(token, None)
            return None
        return hit[0]

    def put(self, token: str, principal: Principal, exp: float) -> None:
        """Keep a token that just passed, until its ``exp`` or ``ttl_s`` from now."""
        until = min(exp, self._clock() + self.ttl_s)
        if self.ttl_s <= 0 or until <= self._clock():
            return
        with self._lock:
            if len(self._entries) >= MAX_ENTRIES:
                self._entries.clear()
            self._entries[token] = (principal, until)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
