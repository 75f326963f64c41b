"""``AuthGate``: who may act, for one app (a part built by the composition root).

It holds what the checks need — the settings (the JWT secret, issuer, audience, the
external identity provider), the database (the users table, auth audit rows), the
external key set (:class:`~app.auth.jwks.JwksCache`, when one is configured) and the
users' status cache (:class:`UserStatusCache`) — and answers:

* :meth:`issue` / :meth:`decode`: a local token, and a token's principal from its
  signature and claims alone (``app.auth.tokens``; verified tokens are remembered until
  their expiry, at most a minute: :class:`VerifiedTokens`);
* :meth:`verify`: a request's caller: :meth:`decode` then :meth:`ensure_active` (the user
  still exists, is enabled and has the token's role; cached ``revocation_cache_s``);
* :meth:`audit_event`: an ``auth_failed`` / ``login`` / ``permission_denied`` row, written
  at once (a database failure is logged, never turned into a 500).

Read top to bottom: the gate, then the active check (:func:`load_status`,
:func:`check_status`); the two caches it keeps are :mod:`app.auth.caches`.

**Is the caller behind a valid token still allowed in?** (revocation) A signature proves
who a token was issued to, not that the person may still act: every authenticated request
(API bearer tokens, page sessions, in-process doors) passes :meth:`AuthGate.ensure_active`,
which checks the users table:

* a local token's user must exist, be enabled, still have the token's role and still
  have the token stamp it was issued under (a password change, a new role, disabling —
  each gives the user a new stamp, so a token from before is refused even after the
  change is undone: a token must not outlive the change meant to end it);
* an external (IdP) token's user is its namespaced identity (``<issuer>#<subject>``,
  ``app.auth.external_ids``), which no local account can be; it is refused only when an
  operator mapped it to an ss-tools user (``external_user_map``) whose local account is
  disabled. An IdP subject is never matched to a local account by its bare name.

Answers are cached (:class:`UserStatusCache`, one per app's gate) for
``settings.revocation_cache_s`` seconds (default 5) per username, so a change of
credentials (password, role, disable, delete) ends the user's tokens and page sessions
within that many seconds on every replica; a change made in this process
(``forget_user``) takes effect at once.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from app.auth.caches import UserStatus, UserStatusCache, VerifiedTokens
from app.auth.jwks import JwksCache
from app.auth.tokens import Principal, decode_with_expiry, external_keys, issue_token
from app.errors import AuthError
from app.settings import Settings
from app.store.audit_log import record_audit
from app.store.db import Database
from app.store.users import get_user_by_name

log = logging.getLogger("ss_tools.auth")


class Current:
    """``AuthGate.issue``'s default stamp: the user's current one, read from the table."""


CURRENT = Current()


class AuthGate:
    """Tokens and the users' active check of one app (see the module docstring)."""

    def __init__(
        self,
        settings: Settings,
        db: Database,
        *,
        jwks: JwksCache | None = None,
        statuses: UserStatusCache | None = None,
        tokens: VerifiedTokens | None = None,
    ) -> None:
        self.settings = settings
        self.db = db
        self.jwks = jwks if jwks is not None else external_keys(settings)
        self.statuses = statuses if statuses is not None else UserStatusCache()
        self.tokens = tokens if tokens is not None else VerifiedTokens()

    @property
    def external(self) -> bool:
        """Whether tokens of an external identity provider are accepted (a key set may be
        fetched: callers on the event loop decode them in a worker thread)."""
        return self.jwks is not None

    # ---- tokens -------------------------------------------------------------------------
    def issue(
        self,
        *,
        username: str,
        role: str,
        ttl_s: int | None = None,
        stamp: str | Current | None = CURRENT,
    ) -> tuple[str, int]:
        """A signed HS256 token for ``username`` and its ``expires_in`` in seconds, tied to
        ``stamp`` — the token stamp the caller checked the user under (a sign-in's), or
        by default the user's current one (blocking: one read of the users table)."""
        if isinstance(stamp, Current):
            stamp = load_status(self.db, username).stamp
        return issue_token(self.settings, username=username, role=role, ttl_s=ttl_s, stamp=stamp)

    def decode(self, token: str | None) -> Principal:
        """The principal of ``token`` from its signature and claims alone (no database);
        a token verified before is answered from :class:`VerifiedTokens` until its expiry
        (at most a minute)."""
        cached = self.cached_token(token)
        if cached is not None:
            return cached
        principal, exp = decode_with_expiry(token, self.settings, self.jwks)
        self.tokens.put(token.strip(), principal, exp)  # type: ignore[union-attr]
        return principal

    def cached_token(self, token: str | None) -> Principal | None:
        """The principal of a token verified before and not expired (no I/O), or None."""
        return self.tokens.get(token.strip()) if isinstance(token, str) else None

    def verify(self, token: str | None) -> Principal:
        """The caller behind ``token``: signature, claims, then :meth:`ensure_active`.
        Raises ``AuthError(reason)`` for any defect (blocking on a cache miss)."""
        return self.ensure_active(self.decode(token))

    # ---- the active check ---------------------------------------------------------------
    def cached_status(self, username: str) -> UserStatus | None:
        """The cached answer, or None when the database must be asked (no I/O)."""
        return self.statuses.peek(username)

    def load_status(self, username: str) -> UserStatus:
        """Blocking: the user's row as a :class:`UserStatus`, cached."""
        status = load_status(self.db, username)
        self.statuses.put(username, status, self.settings.revocation_cache_s)
        return status

    def ensure_active(self, principal: Principal) -> Principal:
        """Blocking on a cache miss: ``principal`` if its user may still act, else
        ``AuthError`` ("unknown user", "user disabled", "role changed")."""
        status = self.cached_status(principal.user_id) or self.load_status(principal.user_id)
        return check_status(principal, status)

    async def ensure_active_async(self, principal: Principal) -> Principal:
        """:meth:`ensure_active` for the event loop: a cached answer inline, a database
        read in a worker thread."""
        status = self.cached_status(principal.user_id)
        if status is None:
            status = await asyncio.to_thread(self.load_status, principal.user_id)
        return check_status(principal, status)

    async def ensure_current_async(self, principal: Principal) -> Principal:
        """:meth:`ensure_active` from the users table itself, never the cache (a worker
        thread): for a decision that must see the user as they are now, such as a
        person's answer to a confirmation (a role taken away a moment ago counts).
        Refreshes the cache."""
        status = await asyncio.to_thread(self.load_status, principal.user_id)
        return check_status(principal, status)

    def forget_user(self, username: str | None = None) -> None:
        """Drop cached answers for ``username`` (all users when None)."""
        self.statuses.forget(username)

    # ---- audit rows of the auth seams -----------------------------------------------------
    def audit_event(
        self,
        *,
        kind: str,
        decision: str,
        reason: str | None,
        user: str | None = None,
        role: str | None = None,
        args: dict[str, Any] | None = None,
    ) -> None:
        """Append one audit row in its own transaction. A database failure is logged, not
        raised, so it cannot turn a 401 into a 500 (the refusal itself still happens)."""
        try:
            with self.db.session() as session:
                record_audit(
                    session,
                    kind=kind,
                    user=user,
                    role=role,
                    decision=decision,
                    reason=reason,
                    args=args,
                )
        except SQLAlchemyError:
            log.error("could not write audit row kind=%s decision=%s", kind, decision)


# ---- the active check ----------------------------------------------------------
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
