"""The graph's node bodies, by role (``app.agent.graph`` only wires them and their edges):

* ``model``: one model call of a turn, or the turn's end before it (``salvage``: a
  reply read leniently);
* ``guard``: every proposed call through the per-call policy (``police``; ``checked``:
  a call that passed it and its card's data; ``refuse``: saying no), cards opened;
* ``confirm``: a person's answer (an interrupt), then every answer checked again;
  ``approval``: a second person's approval (four-eyes);
* ``tools``: the confirmed calls run (``tool_endings``: how one ends when it does not
  complete); ``tool_deps``: a call's ToolDeps.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langgraph.runtime import Runtime

from app.agent.state import AgentContext, AgentState

#: A node LangGraph calls with the run's state and runtime.
Node = Callable[[AgentState, Runtime[AgentContext]], Awaitable[dict[str, Any]]]
