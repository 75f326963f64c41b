"""A completed call's result as the page presents it (DESIGN decision 9): the typed view
(:mod:`app.views`) of its raw result, from the declaration's ``presentation``, with links
into the Superset of the result's environment. Beside :mod:`app.agent.tool_data` (the
result's data on ``tool_end``)."""

from __future__ import annotations

import logging
from typing import Any

from app.agent.tools import ToolDecl
from app.agent.tools.base import ToolDeps
from app.errors import SsToolsError
from app.views import ToolView, build_view

log = logging.getLogger("ss_tools.agent")


def present(
    decl: ToolDecl, result: Any, deps: ToolDeps | Any, env_id: str | None
) -> ToolView | None:
    """The typed view of a completed call's raw result: the declaration's presentation,
    links into the Superset of the result's environment. A view that cannot be built is
    logged and left out; the result text still reaches the model and the page."""
    if isinstance(result, dict):
        env_id = result.get("env") or result.get("env_id") or result.get("target_env") or env_id
    try:
        return build_view(
            decl.presentation, decl.name, result, superset_url=_superset_url(deps, env_id)
        )
    except (
        ValueError,
        TypeError,
        KeyError,
        AttributeError,
    ) as exc:  # pydantic's errors are ValueErrors
        log.warning("no view for %s: %s", decl.name, exc)
        return None


def _superset_url(deps: Any, env_id: Any) -> str | None:
    registry = getattr(deps, "registry", None)
    if registry is None or not isinstance(env_id, str) or not env_id:
        return None
    try:
        return str(registry.get(env_id).url)
    except SsToolsError:
        return None
