"""The rules in force, for the agent side: the policy and the environment table.

:class:`Rules` (one per app, built by the composition root, held by the agent core):

* :attr:`Rules.tools`: the tools in force, spec and implementation (default: the
  product's, ``app.tools.TOOLS``; a test may hand in a catalog with a tool of its own);
* :meth:`Rules.policy`: their catalog (the product's: ``app.policy.DEFAULT_POLICY``) plus
  the overrides of ``Settings.policy_file`` (``policy.toml``), re-read when the file changes;
* :meth:`Rules.envs`: the configured environments' tiers and the default environment
  (:class:`app.policy.EnvTable`, from the registry), for :func:`app.policy.resolve_env`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from app.errors import ConfigError
from app.policy import DEFAULT_POLICY, EnvTable, Policy, load_policy
from app.policy.toolspec import Serves, served_by
from app.superset.registry import EnvironmentRegistry
from app.tools import TOOLS
from app.tools.kit import Tool
from app.tools.registry import catalog_of


def default_policy() -> Policy:
    """The product's catalog with no policy file (``app.policy.DEFAULT_POLICY``)."""
    return DEFAULT_POLICY


class PolicyFile:
    """A policy file applied to a base policy; re-read when its mtime changes."""

    def __init__(self, path: Path, base: Policy) -> None:
        self.path = path
        self.base = base
        self._lock = threading.Lock()
        self._loaded: tuple[int, Policy] | None = None

    def current(self) -> Policy:
        try:
            mtime = self.path.stat().st_mtime_ns
        except OSError as exc:
            reason = exc.strerror or exc
            raise ConfigError(f"{self.path}: cannot read the policy file: {reason}") from exc
        with self._lock:
            if self._loaded is None or self._loaded[0] != mtime:
                self._loaded = (mtime, load_policy(self.path, policy=self.base))
            return self._loaded[1]


class Rules:
    """The policy and the environment table in force for one app."""

    def __init__(
        self,
        registry: EnvironmentRegistry,
        policy_file: Path | None = None,
        *,
        tools: Mapping[str, Tool] | None = None,
        countdown_s: int | None = None,
    ) -> None:
        """``countdown_s``: the deployment's wait before a dangerous card can be confirmed
        (``SS_TOOLS_DANGEROUS_COUNTDOWN_S``; default: the policy's 10 s)."""
        self.registry = registry
        self.tools: Mapping[str, Tool] = TOOLS if tools is None else tools
        base = default_policy() if tools is None else Policy(catalog=catalog_of(tools))
        self._base = base if countdown_s is None else replace(base, countdown_s=countdown_s)
        self._file = PolicyFile(Path(policy_file), self._base) if policy_file else None

    def policy(self) -> Policy:
        """The policy in force: the declarations' catalog, plus the policy file when one
        is set (a missing or bad file is a ``ConfigError``)."""
        return self._base if self._file is None else self._file.current()

    def serving(self, need: Serves) -> str:
        """The name of the tool in force that serves ``need`` (e.g. ``task_status``: the
        tool a door names where it tells a client how to follow a task up)."""
        return served_by(self.policy().catalog, need)

    def envs(self) -> EnvTable:
        """The configured environments (tiers as configured, None when unset) and the
        default environment a call without one runs on."""
        return EnvTable.configured(self.registry.configured_tiers())
