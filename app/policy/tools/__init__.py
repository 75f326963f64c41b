"""The product's tool specs (what each tool is), joined from one spec module per family.

Each family module (meta, dashboards, sql, security, backup, deploy, git, maintenance, undo)
holds its tools' args models and declares each tool's :class:`app.policy.ToolSpec` with
``family.spec(...)`` (see :mod:`app.policy.tools.declare`). This package joins them,
refusing a name declared twice:

* :data:`TOOL_CATALOG`: name → ToolSpec, read-only, in declaration order;
* :data:`DEFAULT_POLICY`: ``Policy(catalog=TOOL_CATALOG)``, the product's policy without a
  policy file (the default of every function of :mod:`app.policy` that takes ``policy=``).

Pure, like all of :mod:`app.policy`: what a tool does (its I/O) is its implementation,
``app/agent/tools/<family>.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from app.policy.catalog import ToolSpec
from app.policy.config import Policy
from app.policy.tools import (
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
from app.policy.tools.declare import SpecFamily

FAMILIES: tuple[SpecFamily, ...] = (
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


def join_specs(families: tuple[SpecFamily, ...]) -> dict[str, ToolSpec]:
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
DEFAULT_POLICY = Policy(catalog=TOOL_CATALOG)

__all__ = ["DEFAULT_POLICY", "FAMILIES", "TOOL_CATALOG", "SpecFamily", "join_specs"]
