"""A model's reply read leniently once: a call written as JSON in the text (fenced or
not) becomes a tool call; JSON meant as a call that is not one is :class:`Unreadable`
(the model node's repair try says why: ``app.agent.nodes.model``).
"""

from __future__ import annotations

import json
import re
import uuid
from typing import Any

from langchain_core.messages import AIMessage

# the text's first ``` and the fence it opens (a search would try each later ``` again)
_FENCE = re.compile(r"\A(?>.*?```)(?:json|JSON)?+\s*+(.*?)```", re.DOTALL)
_NAME_KEYS = ("name", "tool", "tool_name", "function")
_ARGS_KEYS = ("arguments", "args", "parameters", "input")


class Unreadable(Exception):
    """A reply that looks like a call but is not one (the repair note says why)."""


def _call_of(data: Any) -> dict[str, Any] | None:
    if not isinstance(data, dict):
        return None
    name = next((data[k] for k in _NAME_KEYS if isinstance(data.get(k), str)), None)
    if name is None and isinstance(data.get("function"), dict):
        return _call_of(data["function"])
    if name is None:
        return None
    args: Any = next((data[k] for k in _ARGS_KEYS if k in data), {})
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            raise Unreadable(f"the arguments of {name} are not JSON") from None
    if not isinstance(args, dict):
        raise Unreadable(f"the arguments of {name} are not an object")
    return {"name": name, "args": args, "id": f"call_{uuid.uuid4().hex[:24]}", "type": "tool_call"}


def salvage(reply: AIMessage) -> AIMessage:
    """``reply`` with a call it wrote as JSON text made a tool call (fenced or bare; a
    name outside the offered tools is kept: the guard says which tools exist). Raises
    :class:`Unreadable` for JSON that is meant as a call but is not one."""
    if reply.tool_calls or not isinstance(reply.content, str):
        return reply
    text = reply.content.strip()
    fenced = _FENCE.match(text)
    candidate = fenced.group(1).strip() if fenced else text
    if not candidate.startswith(("{", "[")):
        return reply
    try:
        data = json.loads(candidate)
    except ValueError:
        if fenced or text.startswith("{"):
            raise Unreadable("the reply is not valid JSON") from None
        return reply
    items = data if isinstance(data, list) else [data]
    calls = [c for c in map(_call_of, items) if c is not None]
    if not calls:
        if fenced is None:
            raise Unreadable("the reply is JSON but names no tool")
        return reply
    rest = (text[: fenced.start()] + text[fenced.end() :]).strip() if fenced else ""
    return AIMessage(content=rest, tool_calls=calls, id=reply.id)
