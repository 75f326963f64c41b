"""Sign-in throttling against password guessing, shared by ``POST /api/auth/token`` and
/login.

Per username and per client address, sign-in attempts are counted in the database (so the
limits hold across replicas), each one atomically and BEFORE its password is checked
(:func:`begin_login`: counted after the check, 16 simultaneous wrong passwords would all
be checked).
The ``login_max_failures_per_user`` / ``login_max_failures_per_client``-th attempt blocks
its key at once with exponential backoff (``login_backoff_s``, doubling, at most
``login_backoff_max_s``); while blocked, every attempt — even with the right password —
is refused with a ``Retry-After``, counted, and costs no password check. So at most the
limit of passwords are checked per window, however many arrive together. A success clears
the username's counter and gives the client back its one attempt.

Audit rows are coalesced so an unauthenticated caller cannot flood the log: one ``login``
/ ``deny`` row for a username's first failure in a window (with the count of the window
it closed), and one ``login_throttled`` row when a username or client becomes blocked.
Other failures only increment the counters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.auth.gate import AuthGate
from app.settings import Settings
from app.store import login_throttle
from app.store.models import utcnow

INVALID_CREDENTIALS = "invalid username or password"


@dataclass(frozen=True)
class LoginGate:
    """This attempt, counted: may it check a password (else ``retry_after_s``)?"""

    allowed: bool
    retry_after_s: int = 0
    by_user: login_throttle.Attempt | None = None
    by_client: login_throttle.Attempt | None = None


def _keys(username: str, client: str | None) -> tuple[str, str]:
    return f"user:{username.strip().lower()[:200]}", f"client:{(client or 'unknown')[:100]}"


def _limits(settings: Settings, limit: int) -> login_throttle.Limits:
    return login_throttle.Limits(
        limit=limit,
        window_s=settings.login_window_s,
        backoff_s=settings.login_backoff_s,
        backoff_max_s=settings.login_backoff_max_s,
    )


def begin_login(auth: AuthGate, username: str, client: str | None) -> LoginGate:
    """Blocking: count this attempt for the username and the client — atomically, BEFORE
    any password is checked — and say whether it may check one."""
    settings = auth.settings
    user_key, client_key = _keys(username, client)
    now = utcnow()
    with auth.db.session() as session:  # always user, then client: one lock order
        by_user = login_throttle.count_attempt(
            session, key=user_key, limits=_limits(settings, settings.login_max_failures_per_user),
            now=now,
        )  # fmt: skip
        by_client = login_throttle.count_attempt(
            session, key=client_key,
            limits=_limits(settings, settings.login_max_failures_per_client), now=now,
        )  # fmt: skip
    if by_user.allowed and by_client.allowed:
        return LoginGate(True, 0, by_user, by_client)
    wait = max(a.retry_after_s(now) for a in (by_user, by_client) if not a.allowed)
    return LoginGate(False, max(1, math.ceil(wait)), by_user, by_client)


def login_failed(auth: AuthGate, username: str, client: str | None, gate: LoginGate) -> None:
    """Blocking: a checked password was wrong (the attempt is counted already): the
    coalesced audit rows, and old counters pruned."""
    settings = auth.settings
    with auth.db.session() as session:
        login_throttle.prune(session, now=utcnow())
    by_user, by_client = gate.by_user, gate.by_client
    if by_user is not None and by_user.new_window:
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
        if counted is not None and counted.failures == limit:  # it blocked the key: one row
            blocked_s = counted.retry_after_s(utcnow())
            auth.audit_event(
                kind="login_throttled",
                decision="deny",
                reason=f"too many failed sign-ins for this {what}; "
                f"blocked for {math.ceil(blocked_s)} s",
                user=username,
                args={"client": client, "failures": counted.failures},
            )


def login_succeeded(auth: AuthGate, username: str, client: str | None) -> None:
    """Blocking: a correct sign-in clears the username's attempts and gives the client
    back the one attempt it counted."""
    settings = auth.settings
    user_key, client_key = _keys(username, client)
    with auth.db.session() as session:
        login_throttle.clear(session, key=user_key)
        login_throttle.refund(
            session,
            key=client_key,
            limits=_limits(settings, settings.login_max_failures_per_client),
        )
