"""A tool's result as JSON data for the doors (``ToolEndEvent.data``), capped in size.

The model reads the summarised text (``summarise_response``, 4000 chars); a door that can
carry structured output (MCP ``structuredContent``) gets the result itself as JSON values,
at most :data:`DATA_LIMIT_BYTES` of it. A larger result is cut structurally — a list keeps
its first items, an object its first keys, a long string its head — and flagged
``truncated``; the summary text says what the whole held.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

DATA_LIMIT_BYTES = 64 * 1024
CUT = "…"

__all__ = ["DATA_LIMIT_BYTES", "tool_data"]


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
