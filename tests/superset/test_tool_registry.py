"""The tool families together are exactly the 22 tools of the policy catalog."""

from __future__ import annotations

import inspect

from app.agent.tools import ALL_TOOLS


def test_all_tools_match_the_policy_catalog() -> None:
    from app.agent.tools import TOOL_CATALOG

    missing = sorted(set(TOOL_CATALOG) - set(ALL_TOOLS))
    extra = sorted(set(ALL_TOOLS) - set(TOOL_CATALOG))
    assert (missing, extra) == ([], [])
    assert len(ALL_TOOLS) == 22


def test_every_tool_is_async_and_documented_for_the_model() -> None:
    for name, fn in ALL_TOOLS.items():
        assert inspect.iscoroutinefunction(fn), name
        assert fn.__doc__ and len(fn.__doc__.strip()) > 30, name
