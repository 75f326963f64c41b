"""A person's attempt to link their Superset account, as every door makes it (the HTTP API,
the page's form: ``app.api.superset_accounts`` and ``app.pages.agent_ways``); it lives with the
core, the part every door may reach, so that no door reaches the Superset client itself:

1. the environment must exist (404) and link accounts (422, from the accounts);
2. the attempt is counted against the sign-in throttle before Superset is asked
   (``app.auth.throttle``: per Superset username of the environment, and per client);
   a blocked one is 429 with the seconds to wait;
3. the accounts sign in once and keep the link (``app.superset.accounts``); a refusal is
   audited with Superset's reason (never the password) and counted as a failed sign-in;
4. the person's session is replaced by one that starts from the token Superset just
   issued, so their first call needs no refresh.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from app.auth.gate import AuthGate
from app.auth.throttle import begin_login, login_failed, login_succeeded
from app.errors import NoEnvironmentError
from app.superset.accounts import LinkRefused
from app.superset.registry import EnvironmentRegistry


@dataclass(frozen=True)
class LinkOutcome:
    """``status`` 201 with ``link`` (the link as shown), or a refusal: ``error``,
    ``reason`` and, for 429, ``retry_after_s``."""

    status: int
    link: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    reason: str = ""
    retry_after_s: int = 0

    @property
    def ok(self) -> bool:
        return self.status == 201


def throttle_key(env_id: str, username: str) -> str:
    """The sign-in throttle's username key of a link attempt (apart from product logins)."""
    return f"superset:{env_id}:{username.strip().lower()}"


async def link_attempt(
    auth: AuthGate,
    registry: EnvironmentRegistry,
    *,
    user_id: str,
    env_id: str,
    username: str,
    password: str,
    client: str | None,
) -> LinkOutcome:
    """Link ``username``'s account on ``env_id`` for ``user_id`` (see the module docstring)."""
    try:
        env = registry.get(env_id)
    except NoEnvironmentError:
        return LinkOutcome(404, error="not_found", reason=f"no environment '{env_id}'")
    accounts = registry.accounts
    if accounts is None:
        return LinkOutcome(422, error="invalid_request", reason="no accounts are set up")
    key = throttle_key(env.id, username)
    gate = await asyncio.to_thread(begin_login, auth, key, client)
    if not gate.allowed:
        return LinkOutcome(
            429, error="too_many_requests", retry_after_s=gate.retry_after_s,
            reason=f"too many sign-in attempts; try again in {gate.retry_after_s} s",
        )  # fmt: skip
    try:
        view, linked, access = await accounts.link(env, user_id, username, password)
    except LinkRefused as refused:
        if refused.error == "superset_login_refused":
            await asyncio.to_thread(login_failed, auth, key, client, gate)
        await accounts.refused_link(env.id, user_id, username, refused.reason, client)
        return LinkOutcome(refused.status, error=refused.error, reason=refused.reason)
    await asyncio.to_thread(login_succeeded, auth, key, client)
    registry.forget(env.id, user_id)  # a session of an older link goes
    registry.client(env.id, user_id, found=linked).prime(access)
    return LinkOutcome(201, link=view.as_dict())
