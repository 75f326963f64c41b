"""Policy access from the agent side: the policy in force and the environment table.

Phase A seam (see the team plan): every agent-side part that needs the catalog or an
environment's tier asks these two functions. Phase B hands the same parts in from the
composition root instead.
"""

from __future__ import annotations

from app.policy import Policy, active_policy
from app.policy.envs import EnvTable
from app.superset.registry import get_registry


def current_policy() -> Policy:
    """The catalog in force: the built-in declarations plus ``policy.toml`` overrides."""
    return active_policy()


def current_envs() -> EnvTable:
    """The configured environments' tiers and the registry's default environment."""
    registry = get_registry()
    tiers = {env.id: env.tier for env in registry.environments.values()}
    default = registry.resolve(None).id if registry.environments else None
    return EnvTable(tiers=tiers, default=default)
