"""A completed call's result for the doors (what the tool node, :mod:`app.agent.nodes.tools`,
sends on): its data and its view.

* :func:`tool_data`: the result as JSON data (``ToolEndEvent.data``), capped in size. The
  model reads the summarised text (``summarise_response``, 4000 chars); a door that can
  carry structured output (MCP ``structuredContent``) gets the result itself as JSON
  values, at most the settings' ``result_max_bytes`` of it (:data:`DATA_LIMIT_BYTES` by
  default). A larger result is cut structurally — a list keeps its first items, an
  object its first keys, a long string its head — and flagged ``truncated``; the summary
  text says what the whole held.
* :func:`present`: the result as the page presents it (docs/contract.md, decision 9), the
  typed view (:mod:`app.views`): the tool's own view, else the generic one of its spec's
  ``presentation``, with links into the
  Superset of the result's environment, within the settings' result caps
  (:func:`app.views.cap_view`: rows, a value's characters, bytes). What the caps left
  out is the view's ``cut``, said in words on the event (``ToolEndEvent.cut_note``) for
  the HTTP and MCP doors; the checkpoint keeps this view, so it holds no more either.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from pydantic import BaseModel

from app.caps import ResultCaps
from app.errors import SsToolsError
from app.tools.kit import Tool, ToolDeps
from app.views import TableView, ToolView, build_view, cap_view, cut_sentence

log = logging.getLogger("ss_tools.agent")

DATA_LIMIT_BYTES = ResultCaps.max_bytes  # the default; a tool node uses its settings'
CUT = "…"


def _size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def _jsonable(result: Any) -> Any:
    if isinstance(result, BaseModel):
        return result.model_dump(mode="json")
    return json.loads(json.dumps(result, ensure_ascii=False, default=str))


def _cut(value: Any, budget: int) -> tuple[Any, bool]:
    """``value`` within about ``budget`` bytes of JSON, and whether anything was left out."""
    if _size(value) <= budget:
        return value, False
    if isinstance(value, str):
        head = value.encode("utf-8")[: max(budget - 8, 0)].decode("utf-8", "ignore")
        return head + CUT, True
    if isinstance(value, list):
        kept: list[Any] = []
        left = budget - 2
        for item in value:
            part, _ = _cut(item, left - 1) if not kept else (item, False)
            cost = _size(part) + 1
            if cost > left:
                break
            kept.append(part)
            left -= cost
        return kept, True
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        left = budget - 2
        for key, item in value.items():
            room = left - _size(key) - 2
            if room <= 0:
                break
            part, _ = _cut(item, room)
            cost = _size(key) + _size(part) + 2
            if cost > left:
                break
            out[key] = part
            left -= cost
        return out, True
    return None, True  # a number or a bool over the budget: only when the budget is tiny


def tool_data(result: Any, limit: int = DATA_LIMIT_BYTES) -> tuple[Any, bool]:
    """``(data, truncated)``: the result as JSON values within ``limit`` bytes. Text
    results are not data (the text is the result): ``(None, False)``."""
    if result is None or isinstance(result, str | bytes):
        return None, False
    return _cut(_jsonable(result), limit)


def present(
    tool: Tool,
    result: Any,
    deps: ToolDeps | Any,
    env_id: str | None,
    caps: ResultCaps | None = None,
) -> ToolView | None:
    """The typed view of a completed call's raw result: the tool's view (else its
    presentation's), links into the Superset of the result's environment, within ``caps``
    (default: the settings' defaults). A view that cannot be built is logged and left out;
    the result text still reaches the model and the page."""
    if isinstance(result, dict):
        env_id = result.get("env") or result.get("env_id") or result.get("target_env") or env_id
    try:
        view = build_view(
            tool.spec.presentation,
            result,
            superset_url=_superset_url(deps, env_id),
            builder=tool.view,
        )
        return None if view is None else cap_view(view, caps or ResultCaps())
    except (
        ValueError,
        TypeError,
        KeyError,
        AttributeError,
    ) as exc:  # pydantic's errors are ValueErrors
        log.warning("no view for %s: %s", tool.spec.name, exc)
        return None


def cut_note(view: ToolView | None, lang: str) -> str:
    """What the caps left out of ``view``, in words ("" when nothing was)."""
    if view is None:
        return ""
    return cut_sentence(view.cut, lang, table=isinstance(view, TableView))


def _superset_url(deps: Any, env_id: Any) -> str | None:
    registry = getattr(deps, "registry", None)
    if registry is None or not isinstance(env_id, str) or not env_id:
        return None
    try:
        return str(registry.get(env_id).url)
    except SsToolsError:
        return None
