"""The configured Superset environments and one pooled client per environment.

The registry knows each environment's configured tier (None when unset) but decides no
tier itself: the agent side resolves environments and tiers with :mod:`app.policy.risk`
(``app.agent.rules.Rules.envs()``), including the default environment. The composition
root loads one registry (:func:`load_environments`) and hands it to the parts.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import httpx

from app.errors import NoEnvironmentError
from app.superset.client import SupersetClient
from app.superset.environments import Environment, Tier, read_environments_file

TierOf = Callable[[str], str | None]


class EnvironmentRegistry:
    """Environments by id (file order kept), their config errors, and lazy clients."""

    def __init__(
        self,
        environments: Iterable[Environment] = (),
        *,
        errors: dict[str, str] | None = None,
        source: Path | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.environments: dict[str, Environment] = {}
        for env in environments:
            if env.id in self.environments:
                raise ValueError(f"duplicate environment id {env.id!r}")
            self.environments[env.id] = env
        self.errors: dict[str, str] = dict(errors or {})
        self.source = source
        self._transport = transport
        self._clients: dict[str, tuple[LoopRef | None, SupersetClient]] = {}

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

    def client(self, env_id: str) -> SupersetClient:
        """The pooled client of ``env_id`` (created on first use)."""
        env = self.get(env_id)
        if env.id in self.errors:
            raise NoEnvironmentError(
                f"environment {env.id!r} is unavailable: {self.errors[env.id]}", env_id=env.id
            )
        loop = _running_loop()
        entry = self._clients.get(env.id)
        if entry is None or not _same_loop(entry[0], loop):
            # A pooled httpx client is bound to the event loop it first ran on; a new loop
            # (a test's own loop, a worker thread) gets its own client. The old one's loop
            # is gone or busy elsewhere, so it is left to that loop, not closed from here.
            entry = (_ref(loop), SupersetClient(env, transport=self._transport))
            self._clients[env.id] = entry
        return entry[1]

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
        entries, self._clients = list(self._clients.values()), {}
        for client_loop, client in entries:
            if _same_loop(client_loop, loop):
                await client.aclose()


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


def load_environments(path: Path) -> EnvironmentRegistry:
    """Load ``environments.toml`` (missing file → empty registry; bad file → ConfigError)."""
    envs, errors = read_environments_file(path)
    return EnvironmentRegistry(envs, errors=errors, source=Path(path))
