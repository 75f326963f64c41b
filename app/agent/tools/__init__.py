"""The tools' implementations, joined from one module per family.

A tool's spec (what it is) lives in policy, ``app/policy/tools/<family>.py``; its
implementation (what it does) in ``app/agent/tools/<family>.py``, tied to the spec by
``@family.implements(spec)`` (see :mod:`app.agent.tools.base`). This package joins the
implementations, refusing a name implemented twice or a spec left without one:

* :data:`TOOLS`: name → ToolDecl (the spec, the function and its I/O hooks), in the
  catalog's order;
* :data:`TOOL_CATALOG`: name → :class:`app.policy.ToolSpec`, policy's
  (``app.policy.TOOL_CATALOG``, re-exported);
* :data:`ALL_TOOLS`: name → tool function.

Adding a tool touches its spec module, its implementation module and its tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from app.agent.tools import (
    backup,
    dashboards,
    deploy,
    git,
    maintenance,
    meta,
    security,
    sql,
    undo,
)
from app.agent.tools.base import Family, ToolDecl, ToolDeps, ToolFn
from app.policy import ToolSpec
from app.policy.tools import TOOL_CATALOG

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


def join(families: tuple[Family, ...]) -> dict[str, ToolDecl]:
    """Every family's implementations in one mapping, in its specs' order; a name
    implemented twice, or a spec of a family without an implementation, is an error."""
    joined: dict[str, ToolDecl] = {}
    for family in families:
        missing = family.missing()
        if missing:
            raise ValueError(f"family {family.name!r} has specs with no implementation: {missing}")
        for name in family.specs.specs:
            if name in joined:
                raise ValueError(
                    f"tool {name!r} is declared twice (families {joined[name].family!r} "
                    f"and {family.name!r})"
                )
            joined[name] = family.tools[name]
    return joined


def catalog_of(decls: Mapping[str, ToolDecl]) -> dict[str, ToolSpec]:
    """The specs of ``decls`` (name → ToolSpec), in their order."""
    return {name: decl.spec for name, decl in decls.items()}


def _implemented(decls: Mapping[str, ToolDecl], catalog: Mapping[str, ToolSpec]) -> None:
    """Every spec of ``catalog`` has exactly one implementation in ``decls``, and nothing
    else does."""
    if list(decls) != list(catalog):
        unimplemented = [n for n in catalog if n not in decls]
        unknown = [n for n in decls if n not in catalog]
        raise ValueError(
            f"tools and catalog differ: specs with no implementation {unimplemented}, "
            f"implementations with no spec in the catalog {unknown}"
        )
    for name, decl in decls.items():
        if decl.spec is not catalog[name]:
            raise ValueError(f"tool {name!r} implements a spec that is not the catalog's")


TOOLS: Mapping[str, ToolDecl] = MappingProxyType(join(FAMILIES))
_implemented(TOOLS, TOOL_CATALOG)
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
