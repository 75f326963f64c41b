"""The catalog: every family's tool specs joined, in one list of families. Pure.

:data:`FAMILIES` is the one list of the product's tool families (their ``spec.py``, in
the catalog's order: the order tools are listed to the model, the doors and a person);
:data:`TOOL_CATALOG` is name → :class:`~app.policy.toolspec.ToolSpec`, read-only. Policy
(``app.policy``: its default policy and the contract's tables are views of it), the MCP
door and the planner read it; it imports no implementation (:mod:`app.tools.registry`
joins those). A name declared twice is an error.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from app.policy.toolspec import ToolSpec
from app.tools.backup import spec as backup
from app.tools.dashboards import spec as dashboards
from app.tools.declare import Family
from app.tools.deploy import spec as deploy
from app.tools.git import spec as git
from app.tools.maintenance import spec as maintenance
from app.tools.meta import spec as meta
from app.tools.security import spec as security
from app.tools.sql import spec as sql
from app.tools.undo import spec as undo

FAMILIES: tuple[Family, ...] = (
    meta.family,
    dashboards.family,
    sql.family,
    security.family,
    backup.family,
    deploy.family,
    git.family,
    maintenance.family,
    undo.family,
)


def join_specs(families: tuple[Family, ...]) -> dict[str, ToolSpec]:
    """Every family's specs in one mapping; a name declared twice is an error."""
    joined: dict[str, ToolSpec] = {}
    for family in families:
        for name, spec in family.specs.items():
            if name in joined:
                raise ValueError(
                    f"tool {name!r} is declared twice (families {joined[name].family!r} "
                    f"and {family.name!r})"
                )
            joined[name] = spec
    return joined


TOOL_CATALOG: Mapping[str, ToolSpec] = MappingProxyType(join_specs(FAMILIES))

__all__ = ["FAMILIES", "TOOL_CATALOG", "join_specs"]
