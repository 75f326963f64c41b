"""Sign-in throttling (issue 9 item 6), shared by ``POST /api/auth/token`` and /login.

Per username and per client address, failed sign-ins are counted in the database (so the
limits hold across replicas). A key with ``login_max_failures_per_user`` /
``login_max_failures_per_client`` failures is blocked with exponential backoff
(``login_backoff_s``, doubling, at most ``login_backoff_max_s``); while blocked, every
attempt — even with the right password — is refused with a ``Retry-After`` and costs no
password check. A success clears the username's counter (not the client's).

Audit rows are coalesced so an unauthenticated caller cannot flood the log: one ``login``
/ ``deny`` row for a username's first failure in a window (with the count of the window
it closed), and one ``login_throttled`` row when a username or client becomes blocked.
Other failures only increment the counters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.auth.gate import AuthGate
from app.store import throttle
from app.store.models import utcnow

INVALID_CREDENTIALS = "invalid username or password"


@dataclass(frozen=True)
class LoginGate:
    allowed: bool
    retry_after_s: int = 0


def _keys(username: str, client: str | None) -> tuple[str, str]:
    return f"user:{username.strip().lower()[:200]}", f"client:{(client or 'unknown')[:100]}"


def check_login(auth: AuthGate, username: str, client: str | None) -> LoginGate:
    """Blocking: may this username try from this client now?"""
    user_key, client_key = _keys(username, client)
    with auth.db.session() as session:
        wait = throttle.blocked_for(session, keys=[user_key, client_key], now=utcnow())
    if wait > 0:
        return LoginGate(False, max(1, math.ceil(wait)))
    return LoginGate(True)


def login_failed(auth: AuthGate, username: str, client: str | None) -> None:
    """Blocking: count a failed sign-in and write the coalesced audit rows."""
    settings = auth.settings
    user_key, client_key = _keys(username, client)
    common = {
        "window_s": settings.login_window_s,
        "backoff_s": settings.login_backoff_s,
        "backoff_max_s": settings.login_backoff_max_s,
    }
    now = utcnow()
    with auth.db.session() as session:
        by_user = throttle.count_failure(
            session,
            key=user_key,
            limits=throttle.Limits(limit=settings.login_max_failures_per_user, **common),
            now=now,
        )
        by_client = throttle.count_failure(
            session,
            key=client_key,
            limits=throttle.Limits(limit=settings.login_max_failures_per_client, **common),
            now=now,
        )
        throttle.prune(session, now=now)
    if by_user.new_window:
        args: dict[str, object] = {"client": client, "failures": by_user.failures}
        if by_user.earlier_failures:
            args["earlier_failures"] = by_user.earlier_failures
        auth.audit_event(
            kind="login", decision="deny", reason=INVALID_CREDENTIALS, user=username, args=args
        )
    for what, counted, limit in (
        ("username", by_user, settings.login_max_failures_per_user),
        ("client", by_client, settings.login_max_failures_per_client),
    ):
        if counted.failures == limit:  # the moment it becomes blocked: one row
            auth.audit_event(
                kind="login_throttled",
                decision="deny",
                reason=f"too many failed sign-ins for this {what}; "
                f"blocked for {math.ceil(counted.blocked_s)} s",
                user=username,
                args={"client": client, "failures": counted.failures},
            )


def login_succeeded(auth: AuthGate, username: str) -> None:
    """Blocking: a correct sign-in clears the username's failures."""
    user_key, _ = _keys(username, None)
    with auth.db.session() as session:
        throttle.clear(session, key=user_key)
