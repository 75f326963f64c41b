"""The offline planner's knowledge of the undo tool: "undo that" undoes the latest change
the conversation made that is not undone yet.

A write that can be undone answers with its ``undo_id`` (the tool node puts it first in
the result, beside the typed ``undo`` offer). The planner takes the id the person wrote,
else reads the conversation back for the latest one no later undo call named, and fills
the undo's only argument with it; with none, the planner asks.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from app.planner.knowledge import ToolKnowledge, row
from app.planner.results import read_result
from app.planner.slots import CallText, Slots, Texts, phrased

NAME = "undo_change"
ARG = "undo_id"
SAID_ID = re.compile(r"\b[0-9a-f]{32}\b")  # an undo id the person wrote ("undo change <id>")

_UNDO = CallText(
    doing=("undoing change {short}", "отменяю изменение {short}"),
    ru_noun="отмену изменения {short}",
    request=("undo change {undo_id}", "отмени изменение {undo_id}"),
)


def _phrase(s: Slots) -> Texts:
    return phrased(_UNDO, s, short=s.v(ARG)[:8], undo_id=s.v(ARG))


def last_undo_id(messages: list[BaseMessage]) -> str | None:
    """The undo id of the latest change in ``messages`` that no undo call named yet."""
    asked = {
        str((call.get("args") or {}).get(ARG))
        for m in messages
        if isinstance(m, AIMessage)
        for call in m.tool_calls
        if call.get("name") == NAME
    }
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            continue
        data = read_result(str(message.content)).data
        found = data.get(ARG) if isinstance(data, dict) else None
        if isinstance(found, str) and found and found not in asked:
            return found
    return None


def _from_conversation(args: dict[str, Any], messages: list[BaseMessage]) -> dict[str, Any]:
    """The change to undo: the id the person's last message names, else the latest one
    the conversation made ({} when it says none: the planner then asks)."""
    if args.get(ARG):
        return {}
    asked = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
    said = SAID_ID.search(str(asked.content)) if asked is not None else None
    found = said.group(0) if said else last_undo_id(messages)
    return {ARG: found} if found else {}


TOOLS = (
    ToolKnowledge(
        NAME,
        # "undo the deploy" undoes it: before every row that names the change itself
        rows=(
            row(
                5,
                [
                    r"\bundo\b|\brevert\s+(?:that|it|this|the\s+last)\b",
                    r"\bотмени\w*\s+(?:это|последн\w*|изменени\w*|сделанн\w*)",
                    r"\bверни\s+(?:всё\s+|все\s+)?как\s+было\b",
                ],
            ),
        ),
        phrase=_phrase,
        from_conversation=_from_conversation,
    ),
)
