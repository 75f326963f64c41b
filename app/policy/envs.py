"""The one answer to "which environment, and what tier" (pure).

Every part that needs an environment's tier or a call's target environment asks here:
policy (risk, card state), the guard (maintenance gate, confirmation binding), the tool
seam (the environment a tool runs on), the confirmation card and the PRODUCTION banner.

Environment of a call, first of:
  1. the call's own ``target_env`` (deploy, migration) or ``env_id`` argument;
  2. the environment submitted with the turn (the page's picker, the API's ``env_id``);
  3. the page's UIContext ``envId``;
  4. the environment a ``restore_backup``'s backup was taken on;
  5. the registry's default (the environment a tool without one runs on).

Tier of an environment, first of:
  1. its configured ``tier`` in ``environments.toml``;
  2. derived from its id: contains "prod" → prod; "stag" or "test" → staging;
     "dev" or "local" → dev;
  3. prod (fail safe: an unknown environment, or none at all, is treated as prod).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from app.vocab import ENV_TIERS, EnvTier

EnvSource = Literal["args", "submitted", "context", "backup", "default", "none"]


def derive_tier(env_id: str | None) -> EnvTier | None:
    """Tier from the id alone: prod / staging / dev; an unmatched id is prod; no id is None."""
    if env_id is None or not str(env_id).strip():
        return None
    name = str(env_id).strip().lower()
    if "prod" in name:
        return "prod"
    if "stag" in name or "test" in name:
        return "staging"
    if "dev" in name or "local" in name:
        return "dev"
    return "prod"


@dataclass(frozen=True)
class EnvTable:
    """What the resolver knows of the configured environments: each id's configured tier
    (None when the file sets none) and the registry's default environment."""

    tiers: Mapping[str, EnvTier | None] = field(default_factory=dict)
    default: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "tiers", MappingProxyType(dict(self.tiers)))

    def tier_of(self, env_id: str | None) -> EnvTier | None:
        return tier_of(env_id, self)

    @classmethod
    def configured(cls, tiers: Mapping[str, EnvTier | None]) -> EnvTable:
        """The table of configured environments (file order), with :func:`default_env`."""
        return cls(tiers=tiers, default=default_env(tiers))


EMPTY_ENVS = EnvTable()


def tier(env_id: str, envs: EnvTable | None = None) -> EnvTier:
    """THE tier of an environment: its configured tier, else derived from its id, else
    prod (an environment nobody can place is treated as prod: the one fail-safe rule)."""
    configured = (envs or EMPTY_ENVS).tiers.get(env_id.strip())
    if configured in ENV_TIERS:
        return configured
    return derive_tier(env_id) or "prod"


def tier_of(env_id: str | None, envs: EnvTable | None = None) -> EnvTier | None:
    """:func:`tier` of ``env_id``; None when there is no environment at all."""
    if env_id is None or not str(env_id).strip():
        return None
    return tier(str(env_id), envs)


def default_env(tiers: Mapping[str, EnvTier | None]) -> str | None:
    """The environment a call runs on when nothing names one: the only configured env;
    else the first (file order) whose tier is dev by :func:`tier_of`; else the first."""
    ids = list(tiers)
    if len(ids) <= 1:
        return ids[0] if ids else None
    table = EnvTable(tiers=tiers)
    return next((env_id for env_id in ids if tier_of(env_id, table) == "dev"), ids[0])


@dataclass(frozen=True)
class EnvChoice:
    """The environment a call acts on, its tier (never None: no env counts as prod) and
    where the environment came from."""

    env_id: str | None
    tier: EnvTier
    source: EnvSource

    @property
    def is_prod(self) -> bool:
        return self.tier == "prod"


def _text(value: Any) -> str | None:
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def resolve_env(
    tool_args: Mapping[str, Any] | None = None,
    *,
    submitted: str | None = None,
    context: str | None = None,
    backup_env: str | None = None,
    envs: EnvTable | None = None,
) -> EnvChoice:
    """The environment and tier of a call (or of the page, with ``tool_args=None``)."""
    args = dict(tool_args or {})
    candidates: tuple[tuple[EnvSource, Any], ...] = (
        ("args", args.get("target_env")),
        ("args", args.get("env_id")),
        ("submitted", submitted),
        ("context", context),
        ("backup", backup_env),
        ("default", (envs or EMPTY_ENVS).default),
    )
    for source, candidate in candidates:
        if (env_id := _text(candidate)) is not None:
            return EnvChoice(env_id, tier(env_id, envs), source)
    return EnvChoice(None, "prod", "none")
