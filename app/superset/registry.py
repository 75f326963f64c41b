"""The configured Superset environments and their pooled clients, one per account.

A service environment has one client (its service account). On a person or assertion
environment each person has their own client (:meth:`EnvironmentRegistry.client` with
``user``): their own session, tokens, CSRF session and cookies — nothing is shared
between two people, and a person's client never falls back to a service account (asked
without a person it signs in as no one: ``account_not_linked``). The pool is bounded
(``max_clients``, least recently used closed first); a client made from an older link
than the one the guard found is replaced. :attr:`EnvironmentRegistry.accounts` (the links
and mappings, ``app.superset.accounts``) is set by the composition root.

The registry knows each environment's configured tier (None when unset) but decides no
tier itself: the agent side resolves environments and tiers with :mod:`app.policy.risk`
(``app.agent.rules.Rules.envs()``), including the default environment. The composition
root loads one registry (:func:`load_environments`) and hands it to the parts.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import httpx

from app.errors import NoEnvironmentError
from app.superset.accounts import Accounts
from app.superset.client import SupersetClient
from app.superset.credentials import Linked, NoCredentials
from app.superset.environments import Environment, Tier, read_environments_file

TierOf = Callable[[str], str | None]
#: a pooled client's key: (environment, the person it acts for; None: the service account)
ClientKey = tuple[str, str | None]
MAX_CLIENTS = 256


class EnvironmentRegistry:
    """Environments by id (file order kept), their config errors, and lazy clients."""

    def __init__(
        self,
        environments: Iterable[Environment] = (),
        *,
        errors: dict[str, str] | None = None,
        source: Path | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        accounts: Accounts | None = None,
        max_clients: int = MAX_CLIENTS,
    ) -> None:
        self.environments: dict[str, Environment] = {}
        for env in environments:
            if env.id in self.environments:
                raise ValueError(f"duplicate environment id {env.id!r}")
            self.environments[env.id] = env
        self.errors: dict[str, str] = dict(errors or {})
        self.source = source
        self.transport = transport
        self.accounts = accounts
        self.max_clients = max_clients
        self._clients: OrderedDict[ClientKey, tuple[LoopRef | None, SupersetClient]] = OrderedDict()
        self._closing: set[asyncio.Task[None]] = set()

    def __repr__(self) -> str:
        return f"EnvironmentRegistry({list(self.environments)!r})"

    @property
    def ids(self) -> list[str]:
        return list(self.environments)

    def get(self, env_id: str) -> Environment:
        """The environment ``env_id`` (configured, possibly with a config error)."""
        if not self.environments:
            raise NoEnvironmentError("no Superset environment configured")
        env = self.environments.get(env_id)
        if env is None:
            raise NoEnvironmentError(
                f"unknown environment {env_id!r}; configured: {', '.join(self.environments)}",
                env_id=env_id,
            )
        return env

    def configured_tiers(self) -> dict[str, Tier | None]:
        """Each environment's configured tier (None when the file sets none), file order."""
        return {env.id: env.tier for env in self.environments.values()}

    def resolve(self, env_id: str | None, selected: str | None = None) -> Environment:
        """Pick the environment of a call: the explicit ``env_id``; else ``selected`` (the
        environment the agent resolved for the call, default included); else the only
        configured env. The registry never guesses among several: with nothing named it
        raises NoEnvironmentError (the default is the resolver's, app.policy.risk).
        """
        if env_id:
            return self.get(env_id)
        if selected:
            return self.get(selected)
        if not self.environments:
            raise NoEnvironmentError("no Superset environment configured")
        if len(self.environments) == 1:
            return next(iter(self.environments.values()))
        raise NoEnvironmentError(
            f"no environment selected; configured: {', '.join(self.environments)}"
        )

    def client(
        self, env_id: str, user: str | None = None, *, found: Linked | str | None = None
    ) -> SupersetClient:
        """The pooled client of ``env_id`` acting for ``user`` (created on first use). On
        a service environment ``user`` changes nothing; on a person or assertion
        environment it is that person's own client (``found``: the account the guard
        found for them; a client of an older link is replaced)."""
        env = self.get(env_id)
        if env.id in self.errors:
            raise NoEnvironmentError(
                f"environment {env.id!r} is unavailable: {self.errors[env.id]}", env_id=env.id
            )
        person = user if env.acts_as_person else None
        key: ClientKey = (env.id, person)
        loop = _running_loop()
        entry = self._clients.get(key)
        if entry is not None and _same_loop(entry[0], loop) and _current(entry[1], found):
            self._clients.move_to_end(key)
            return entry[1]
        # A pooled httpx client is bound to the event loop it first ran on; a new loop
        # (a test's own loop, a worker thread) gets its own client. The old one's loop is
        # gone or busy elsewhere, so it is left to that loop, not closed from here.
        if entry is not None and _same_loop(entry[0], loop):
            self._close_later(entry[1])
        client = SupersetClient(
            env, transport=self.transport, credentials=self._credentials(env, person, found)
        )
        self._clients[key] = (_ref(loop), client)
        self._clients.move_to_end(key)
        while len(self._clients) > self.max_clients:
            _, (old_loop, old) = self._clients.popitem(last=False)
            if _same_loop(old_loop, loop):
                self._close_later(old)
        return client

    def _credentials(self, env: Environment, user: str | None, found: Linked | str | None) -> Any:
        if self.accounts is not None:
            return self.accounts.credentials(env, user, found)
        return NoCredentials(env, user) if env.acts_as_person else None

    def _close_later(self, client: SupersetClient) -> None:
        """Close a dropped client on this loop, in the background (its requests in flight
        keep their own reference and end first)."""
        try:
            task = asyncio.get_running_loop().create_task(client.aclose())
        except RuntimeError:  # no loop: nothing is open on one
            return
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def forget(self, env_id: str, user: str) -> None:
        """Drop ``user``'s client of ``env_id`` (after an unlink or a new link)."""
        entry = self._clients.pop((env_id, user), None)
        if entry is not None and _same_loop(entry[0], _running_loop()):
            self._close_later(entry[1])

    def describe(self, tier_of: TierOf | None = None) -> list[dict[str, Any]]:
        """One row per environment: id, name, tier, url, error (never credentials).

        ``tier`` is ``tier_of(id)`` when given (the resolver's answer), else the configured
        tier (None when unset)."""
        return [
            {
                "id": env.id,
                "name": env.name,
                "tier": tier_of(env.id) if tier_of is not None else env.tier,
                "url": env.url,
                "error": self.errors.get(env.id),
            }
            for env in self.environments.values()
        ]

    async def aclose(self) -> None:
        loop = _running_loop()
        entries, self._clients = list(self._clients.values()), OrderedDict()
        for client_loop, client in entries:
            if _same_loop(client_loop, loop):
                await client.aclose()
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)


#: The loop a pooled client belongs to (None: made outside any loop), held weakly: a closed
#: loop's id may be reused by the next loop, so the loop itself is compared, never its id.
LoopRef = Callable[[], "asyncio.AbstractEventLoop | None"]


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _ref(loop: asyncio.AbstractEventLoop | None) -> LoopRef | None:
    return weakref.ref(loop) if loop is not None else None


def _same_loop(ref: LoopRef | None, loop: asyncio.AbstractEventLoop | None) -> bool:
    if ref is None or loop is None:
        return ref is None and loop is None
    return ref() is loop


def _current(client: SupersetClient, found: Linked | str | None) -> bool:
    """Whether a pooled client acts on the account the guard found (no account given:
    whatever it acts on)."""
    if found is None:
        return True
    made = client.credentials.generation
    wanted = found.generation if isinstance(found, Linked) else f"assert:{found}"
    return made is None or made == wanted


def load_environments(path: Path) -> EnvironmentRegistry:
    """Load ``environments.toml`` (missing file → empty registry; bad file → ConfigError)."""
    envs, errors = read_environments_file(path)
    return EnvironmentRegistry(envs, errors=errors, source=Path(path))
