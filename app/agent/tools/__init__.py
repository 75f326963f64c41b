"""The 22 tools, joined from one module per family.

Each family module exports ``TOOLS: dict[str, ToolFn]``; :data:`ALL_TOOLS` joins them
and refuses duplicate names. ``tests/superset/test_tool_registry.py`` checks that the
names equal ``app.policy.TOOL_CATALOG``.
"""

from __future__ import annotations

import importlib

from app.agent.tools.base import ToolDeps, ToolFn

FAMILIES = (
    "meta",
    "dashboards",
    "sql",
    "deploy",
    "git",
    "backup",
    "maintenance",
)


def _join() -> dict[str, ToolFn]:
    joined: dict[str, ToolFn] = {}
    for family in FAMILIES:
        module_name = f"{__name__}.{family}"
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise  # a real import error inside the family module
            continue  # family not written yet; the registry test reports the gap
        for name, fn in module.TOOLS.items():
            if name in joined:
                raise RuntimeError(f"tool {name!r} is defined twice (family {family!r})")
            joined[name] = fn
    return joined


ALL_TOOLS: dict[str, ToolFn] = _join()

__all__ = ["ALL_TOOLS", "FAMILIES", "ToolDeps", "ToolFn"]
