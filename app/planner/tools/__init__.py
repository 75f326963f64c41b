"""The planner's knowledge of every tool, joined from the families (one list).

Each family's file (``app/planner/tools/<family>.py``, the families of the tools'
specs) holds its tools' :class:`~app.planner.knowledge.ToolKnowledge` entries as
``TOOLS``; this module joins them into :data:`KNOWLEDGE`, the registry the engine reads,
and :data:`LOOKUPS`, the lookup tool of each kind of object. A tool the registry does not
know (declared after the contract's, or unknown) is still planned for: from its
declaration (see :mod:`app.planner.known`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from app.planner.knowledge import ToolKnowledge
from app.planner.tools import (
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

FAMILIES = (meta, dashboards, sql, security, backup, deploy, git, maintenance, undo)


def _joined() -> dict[str, ToolKnowledge]:
    joined: dict[str, ToolKnowledge] = {}
    for family in FAMILIES:
        for entry in family.TOOLS:
            if entry.name in joined:
                raise ValueError(f"the planner knows {entry.name} twice")
            joined[entry.name] = entry
    return joined


KNOWLEDGE: Mapping[str, ToolKnowledge] = MappingProxyType(_joined())
#: kind of object ("dashboard", "backup") -> the tool that looks one up by name
LOOKUPS: Mapping[str, ToolKnowledge] = MappingProxyType(
    {k.lookup.kind: k for k in KNOWLEDGE.values() if k.lookup is not None}
)


def knowledge(tool: str) -> ToolKnowledge:
    """What the planner knows of ``tool`` (an empty entry for a tool it does not know)."""
    return KNOWLEDGE.get(tool) or ToolKnowledge(tool)
