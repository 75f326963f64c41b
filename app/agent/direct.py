"""Where a direct tool call enters and leaves the graph (``AgentState.direct``).

A door may call one tool without the model (``app.agent.core.runs.call``): the core puts an
``AIMessage`` proposing that call into the conversation, as if the model had proposed it,
and sets ``direct``. The graph then starts at the guard (the same guard -> confirm ->
tools seam, the same audit rows) and ends after the tools instead of asking the model
again. The flag is checkpointed, so a resume from any door ends there too.
"""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import AIMessage

from app.agent.state import AgentState


def is_direct(state: AgentState) -> bool:
    return bool(state.get("direct"))


def entry(state: AgentState) -> Literal["model", "guard"]:
    """A direct call goes straight to the guard; a person's message to the model."""
    messages = state.get("messages") or []
    last = messages[-1] if messages else None
    if is_direct(state) and isinstance(last, AIMessage) and last.tool_calls:
        return "guard"
    return "model"


def after_tools(state: AgentState) -> Literal["model", "__end__"]:
    """The model reads the tools' results, except after a direct call."""
    return "__end__" if is_direct(state) else "model"
