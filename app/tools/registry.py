"""The runnable registry: every spec of the catalog with its implementation.

Each family of :data:`app.tools.catalog.FAMILIES` implements its specs in its ``run.py``
(``app.tools.<family>.run``, found by the family's name: the catalog's list is the only
list of families), where ``runs = Implementations(spec.family)`` records one
:class:`~app.tools.kit.Tool` per spec. :func:`join` puts them in the catalog's order,
refusing a spec left without an implementation or a name implemented twice.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from app.policy.toolspec import ToolSpec
from app.tools.catalog import FAMILIES, TOOL_CATALOG
from app.tools.declare import Family
from app.tools.kit import Implementations, Tool


def implementations(families: Iterable[Family]) -> tuple[Implementations, ...]:
    """The implementations of ``families``: each family's ``run`` module's ``runs``."""
    return tuple(importlib.import_module(f.run_module).runs for f in families)


def join(runs: Iterable[Implementations]) -> dict[str, Tool]:
    """Every family's tools in one mapping, in its specs' order; a name implemented
    twice, or a spec of a family without an implementation, is an error."""
    joined: dict[str, Tool] = {}
    for family in runs:
        missing = family.missing()
        if missing:
            raise ValueError(f"family {family.name!r} has specs with no implementation: {missing}")
        for name in family.family.specs:
            if name in joined:
                raise ValueError(
                    f"tool {name!r} is declared twice (families {joined[name].spec.family!r} "
                    f"and {family.name!r})"
                )
            joined[name] = family.tools[name]
    return joined


def catalog_of(tools: Mapping[str, Tool]) -> dict[str, ToolSpec]:
    """The specs of ``tools`` (name → ToolSpec), in their order."""
    return {name: tool.spec for name, tool in tools.items()}


def _implemented(tools: Mapping[str, Tool], catalog: Mapping[str, ToolSpec]) -> None:
    """Every spec of ``catalog`` has exactly one implementation in ``tools``, and nothing
    else does."""
    if list(tools) != list(catalog):
        unimplemented = [n for n in catalog if n not in tools]
        unknown = [n for n in tools if n not in catalog]
        raise ValueError(
            f"tools and catalog differ: specs with no implementation {unimplemented}, "
            f"implementations with no spec in the catalog {unknown}"
        )
    for name, tool in tools.items():
        if tool.spec is not catalog[name]:
            raise ValueError(f"tool {name!r} implements a spec that is not the catalog's")


TOOLS: Mapping[str, Tool] = MappingProxyType(join(implementations(FAMILIES)))
_implemented(TOOLS, TOOL_CATALOG)

__all__ = ["TOOLS", "catalog_of", "implementations", "join"]
