"""The tools, joined from one module per family.

Each family module declares its tools with ``@family.tool(...)`` (see
:mod:`app.agent.tools.declare`) and exports ``TOOLS`` (name → :class:`ToolDecl`). This
package joins them, refusing a name declared twice:

* :data:`TOOLS`: name → ToolDecl (function, args model, hooks, presentation, hints);
* :data:`TOOL_CATALOG`: name → :class:`app.policy.ToolSpec`, what policy knows (roles and
  affinity from the contract's tables in :mod:`app.policy.catalog`);
* :data:`ALL_TOOLS`: name → tool function.

Adding a tool touches its family module (and its tests) only.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from app.agent.tools import backup, dashboards, deploy, git, maintenance, meta, security, sql
from app.agent.tools.base import ToolDeps, ToolFn
from app.agent.tools.declare import Family, ToolDecl
from app.policy import ToolSpec

FAMILIES: tuple[Family, ...] = (
    meta.family,
    dashboards.family,
    sql.family,
    security.family,
    backup.family,
    deploy.family,
    git.family,
    maintenance.family,
)


def join(families: tuple[Family, ...]) -> dict[str, ToolDecl]:
    """Every family's declarations in one mapping; a name declared twice is an error."""
    joined: dict[str, ToolDecl] = {}
    for family in families:
        for name, decl in family.tools.items():
            if name in joined:
                raise ValueError(
                    f"tool {name!r} is declared twice (families {joined[name].family!r} "
                    f"and {family.name!r})"
                )
            joined[name] = decl
    return joined


def catalog_of(decls: Mapping[str, ToolDecl]) -> dict[str, ToolSpec]:
    """What policy knows of each declared tool (name → ToolSpec), in declaration order."""
    return {name: decl.spec() for name, decl in decls.items()}


TOOLS: Mapping[str, ToolDecl] = MappingProxyType(join(FAMILIES))
TOOL_CATALOG: Mapping[str, ToolSpec] = MappingProxyType(catalog_of(TOOLS))
ALL_TOOLS: Mapping[str, ToolFn] = MappingProxyType({n: d.fn for n, d in TOOLS.items()})

__all__ = [
    "ALL_TOOLS",
    "FAMILIES",
    "TOOLS",
    "TOOL_CATALOG",
    "ToolDecl",
    "ToolDeps",
    "ToolFn",
    "catalog_of",
]
