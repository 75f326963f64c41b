"""The rules in force, for the agent side: the policy and the environment table.

* :func:`current_policy`: the tool declarations' catalog (``app.agent.tools``) plus the
  overrides of ``Settings.policy_file`` (``policy.toml``), re-read when the file changes;
* :func:`current_envs`: the configured environments' tiers and the default environment
  (:class:`app.policy.EnvTable`, from the registry), for :func:`app.policy.resolve_env`.

These are the accessors other parts call until a composition root hands the parts in.
"""

from __future__ import annotations

import threading
from functools import cache
from pathlib import Path

from app.agent.tools import TOOL_CATALOG
from app.errors import ConfigError
from app.policy import EnvTable, Policy, load_policy
from app.settings import get_settings
from app.superset.registry import get_registry


@cache
def default_policy() -> Policy:
    """The declarations' catalog with no policy file."""
    return Policy(catalog=TOOL_CATALOG)


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


@cache
def _policy_file(path: Path) -> PolicyFile:
    return PolicyFile(path, default_policy())


def current_policy() -> Policy:
    """The policy in force: the declarations' catalog, plus ``Settings.policy_file`` when
    one is set (a missing or bad file is a ``ConfigError``)."""
    configured = get_settings().policy_file
    if configured is None:
        return default_policy()
    return _policy_file(Path(configured)).current()


def current_envs() -> EnvTable:
    """The configured environments (tiers as configured, None when unset) and the default
    environment a call without one runs on."""
    return EnvTable.configured(get_registry().configured_tiers())
