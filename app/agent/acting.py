"""Which Superset account a call acts as, checked by the guard before anything reaches
Superset (after RBAC and the arguments, before the preflight, which talks to Superset too).

A call touches the environments it runs on: the one the guard resolved, and for a
cross-environment tool (deploy, migration) its source as well — both ends act as the
person. On a service environment that is the service account. On a person or assertion
environment it is the person's own account (``app.superset.accounts``):

* no link (or no mapped username) is the refusal ``account_not_linked``, with an offer
  to connect the account on a person environment (``link_account``);
* a link Superset no longer honours is ``link_expired`` (found on the row, or when the
  guard renews the person's access token: a refused refresh ends the link), with the
  same offer.

Nothing falls back to another identity. The accounts found ride on the pending call (the
Superset username per environment, never a secret), so the audit rows of its run name
the account. While the call runs, Superset may still refuse (a deactivated account, a
403, an access error of SQL Lab): the tool node turns that :class:`SupersetRefused` into
the same typed refusal (:func:`refusal_of`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from app.agent.offers import link_account
from app.errors import SupersetRefused, ToolError
from app.events import Offer
from app.facts import Refusal
from app.superset.registry import EnvironmentRegistry

log = logging.getLogger("ss_tools.agent")


def superset_envs(
    registry: EnvironmentRegistry,
    signs_in: bool,
    fields: Mapping[str, Any],
    args: Mapping[str, Any],
    env_id: str | None,
    selected: str | None,
) -> list[str]:
    """The configured environments a call signs in to: its own environment, and the source
    of a tool that has one (``source_env``, else the page's environment); none for a tool
    that does not sign in (``signs_in``: its spec's ``open_world`` and ``signs_in``; a
    tool that reaches ``/health`` only needs no account)."""
    if not signs_in:
        return []
    found = [env_id] if env_id else []
    if "source_env" in fields:
        source = args.get("source_env") or selected
        if source and source not in found:
            found.append(source)
    return [e for e in found if e in registry.environments and e not in registry.errors]


async def accounts_for(
    registry: EnvironmentRegistry, user_id: str, env_ids: list[str]
) -> dict[str, str]:
    """The Superset account the call acts as on each environment (raises the typed
    refusal). A person's session is renewed now when it needs it, so a link Superset no
    longer honours is refused here, before the call."""
    out: dict[str, str] = {}
    for env_id in env_ids:
        env = registry.get(env_id)
        if env.identity == "service":
            out[env_id] = env.username
            continue
        if registry.accounts is None:
            raise SupersetRefused(
                f"environment '{env_id}' acts as each person, and no accounts are set up",
                code="account_not_linked", env_id=env_id,
            )  # fmt: skip
        found = await registry.accounts.account(env, user_id)
        client = registry.client(env_id, user_id, found=found)
        try:
            await client.authenticate()
        except SupersetRefused:
            raise
        except ToolError as exc:  # Superset unreachable: the call itself will say so
            log.info("superset %s: no token for %s before the call (%s)", env_id, user_id, exc)
        out[env_id] = client.account or (found if isinstance(found, str) else found.account)
    return out


def refusal_of(tool: str, args: Mapping[str, Any], exc: SupersetRefused) -> Refusal:
    """The typed refusal of a call Superset, or the person's link, said no to."""
    return Refusal(
        code=exc.code,  # type: ignore[arg-type]  # the three codes SupersetRefused carries
        tool_name=tool,
        message=exc.message,
        args=dict(args),
        env_id=exc.env_id,
        reason=exc.reason,
        account=exc.account,
    )


def offers_of(registry: EnvironmentRegistry | None, exc: SupersetRefused, lang: str) -> list[Offer]:
    """The way on: connect the account, when the environment links accounts."""
    if registry is None or exc.code not in ("account_not_linked", "link_expired"):
        return []
    env = registry.environments.get(exc.env_id or "")
    if env is None or env.identity != "person":
        return []
    return [link_account(env.id, lang)]


async def link_offer(
    registry: EnvironmentRegistry, user_id: str, env_id: str | None, lang: str
) -> Offer | None:
    """The way to connect the person's Superset account when ``env_id`` links accounts
    and they have no working link there (a database read; no request to Superset)."""
    env = registry.environments.get(env_id or "")
    if env is None or env.identity != "person" or registry.accounts is None:
        return None
    try:
        await registry.accounts.account(env, user_id)
    except SupersetRefused as exc:
        found = offers_of(registry, exc, lang)
        return found[0] if found else None
    return None
