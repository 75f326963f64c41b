"""The configured environments as the doors show them (:class:`EnvView`), each with its
tier as policy resolves it (one nobody can place is prod)."""

from __future__ import annotations

from dataclasses import dataclass

from app.policy.risk import EnvTable, tier
from app.superset.registry import EnvironmentRegistry
from app.vocab import EnvTier


@dataclass(frozen=True)
class EnvView:
    """A configured environment as the doors show it; ``tier`` is already resolved."""

    id: str
    name: str
    tier: EnvTier
    url: str
    error: str | None = None


def env_views(registry: EnvironmentRegistry, table: EnvTable) -> list[EnvView]:
    """The configured environments, each with its tier as policy resolves it."""
    return [
        EnvView(
            id=row["id"],
            name=row["name"],
            tier=tier(row["id"], table),
            url=row["url"],
            error=row.get("error"),
        )
        for row in registry.describe()
    ]
