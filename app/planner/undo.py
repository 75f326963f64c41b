"""Undo that: the change to undo, read from the conversation.

A write that can be undone answers with its ``undo_id`` (``app.agent.undo``: the tool
node puts it first in the result, beside the typed ``undo`` offer). The planner takes
the id the person wrote, else reads the conversation back for the latest one not undone
yet (a later ``undo_change`` call names it), and fills the undo's only argument with it;
with none, the planner asks.
"""

from __future__ import annotations

import dataclasses
import re

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from app.planner.results import read_result
from app.planner.steps import Intent

UNDO_TOOL = "undo_change"
ARG = "undo_id"
SAID_ID = re.compile(r"\b[0-9a-f]{32}\b")  # an undo id the person wrote ("undo change <id>")


def last_undo_id(messages: list[BaseMessage]) -> str | None:
    """The undo id of the latest change in ``messages`` that no undo call named yet."""
    asked = {
        str((call.get("args") or {}).get(ARG))
        for m in messages
        if isinstance(m, AIMessage)
        for call in m.tool_calls
        if call.get("name") == UNDO_TOOL
    }
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            continue
        data = read_result(str(message.content)).data
        found = data.get(ARG) if isinstance(data, dict) else None
        if isinstance(found, str) and found and found not in asked:
            return found
    return None


def with_undo_id(intent: Intent | None, messages: list[BaseMessage]) -> Intent | None:
    """An undo ``intent`` with its change filled in from the conversation, if it says one."""
    if intent is None or intent.tool != UNDO_TOOL or intent.args.get(ARG):
        return intent
    asked = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
    said = SAID_ID.search(str(asked.content)) if asked is not None else None
    found = said.group(0) if said else last_undo_id(messages)
    if found is None:
        return intent
    missing = [m for m in intent.missing if m != ARG]
    return dataclasses.replace(intent, args={**intent.args, ARG: found}, missing=missing)
