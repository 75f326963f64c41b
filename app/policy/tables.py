"""The contract's two tables, as views of a catalog (the specs' ``roles`` and ``pages``).

The contract names two tables: ``TOOL_PERMISSIONS`` (the tools some role may not run,
each with the roles that may) and ``CONTEXT_TOOL_AFFINITY`` (which tools fit which page
context). Each tool now says both in its own spec (``roles=``, ``pages=``); these
functions read them back in the contract's shapes, for the product's catalog
(``app.policy.TOOL_PERMISSIONS`` / ``CONTEXT_TOOL_AFFINITY``) or any other. A tool
offered on every page (``always_included``) is not a row of the affinity table, as in
the contract. Pure; names no tool.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from app.policy.toolspec import ToolSpec
from app.vocab import OBJECT_TYPES, ROLES

#: the built-in roles (a read open to all of them is open to least-privileged roles too)
ALL_ROLES: Final = frozenset(ROLES)


def permission_table(catalog: Mapping[str, ToolSpec]) -> dict[str, list[str]]:
    """``TOOL_PERMISSIONS``: each tool that not every built-in role may run → its roles."""
    return {n: sorted(s.roles) for n, s in catalog.items() if not ALL_ROLES <= s.roles}


def affinity_table(catalog: Mapping[str, ToolSpec]) -> dict[str, set[str]]:
    """``CONTEXT_TOOL_AFFINITY``: each page context → the tools that fit it."""
    return {page: {n for n, s in catalog.items() if page in s.affinity} for page in OBJECT_TYPES}
