"""The tools one model call is offered: the turn's allowed tools, narrowed to the few the
request most likely needs.

Policy comes first and is not touched here: the turn's allowed tools are what RBAC and
the page's context allow (``app.agent.core.runs.plan_turn``), and the guard still checks
every call against them. This module only chooses which of them the model *reads*
(their schemas are most of a prompt: 22 tools were 2,300 of a call's 2,735 tokens):

* a :data:`Ranker` (handed over by the composition root: the offline planner's reading
  of a request, ``app.planner.rank.ToolRanker``; no core module imports the planner)
  ranks the allowed tools for the person's latest message (read together with the one
  before when it is an answer to a question, a pick);
* the model is offered the ``top_k`` best, in rank order (the first listed is the one a
  weak model picks most), and nothing else: the tool that says what the agent can do is
  offered when the request ranked it, or with every tool to a request the ranking cannot
  place (offered beside the ranked tools as well, it was the local model's pick in 22
  of the 33 eval requests it missed: docs/model-tools.md); the other allowed
  tools are named in the turn's facts (``other_tools``) so a model can still ask for one
  by name. For servers that cache prompt prefixes the system text comes first (the
  stable head of every call), then the offered tools, then what differs per turn;
* the first model call of a turn whose offer was narrowed asks for a call
  (``tool_choice: required``): the request named something the offered tools do.
  (A small model otherwise often copies a tool's definition instead of calling it; a
  server that constrains replies to the call format then reads a call.) Once a call
  has run, the model answers freely;
* a request the ranker cannot place (no candidates) is offered every allowed tool, as
  is the rest of a turn in which the model asked for a tool outside its offer (the
  guard refused it as unknown, or the server could not read the reply: the repair try
  is offered every tool too, ``app.agent.nodes.model.ask_model``).

Nothing here knows which model answers: a capable model gets the narrowed offer too,
and reaches any other allowed tool through the same fallback.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from app.agent.budget import InputBudget
from app.agent.turn_limits import this_turn
from app.cpu import off_loop
from app.facts import read_refusal

#: (the person's messages, oldest first; the allowed tools) -> the tools their latest
#: message most likely asks for, best first; empty when it cannot tell
Ranker = Callable[[Sequence[str], Sequence[str]], Sequence[str]]


#: how much of each message the ranker reads: a request names its tool in its first words,
#: and the ranking holds the interpreter's lock (``re``) while it reads (20,000
#: characters took 0.34 s; 2,000 take about a tenth of that)
RANK_CHARS = 2_000


class Wide(NamedTuple):
    """The model bound with every allowed tool, their names and the call's input budget:
    what the repair try of a narrowed call is offered (``app.agent.nodes.model.ask_model``)."""

    bound: Any
    tools: Sequence[str]
    budget: InputBudget | None


@dataclass(frozen=True)
class ToolOffer:
    """What one model call is offered: ``tools`` (bound, in this order) and ``others``
    (allowed, not bound: named in the turn's facts); ``narrowed``: fewer than allowed."""

    tools: tuple[str, ...]
    others: tuple[str, ...] = ()
    required: bool = False  # the model is asked for a call (``tool_choice: required``)

    @property
    def narrowed(self) -> bool:
        return bool(self.others)


def every_tool(allowed: Sequence[str]) -> ToolOffer:
    return ToolOffer(tuple(allowed))


def _said(messages: Sequence[BaseMessage]) -> list[str]:
    return [str(m.content) for m in messages if isinstance(m, HumanMessage)]


def asked_outside(messages: Sequence[BaseMessage]) -> bool:
    """Whether the model asked for a tool it was not offered in this turn (the guard
    refused it as unknown): the rest of the turn is offered every tool."""
    for m in this_turn(messages):
        if isinstance(m, ToolMessage):
            refusal = read_refusal(str(m.content))
            if refusal is not None and refusal.code == "unknown_tool":
                return True
    return False


def narrow(ranker: Ranker, allowed: Sequence[str], said: Sequence[str], top_k: int) -> ToolOffer:
    """The offer for a conversation whose person said ``said`` (oldest first)."""
    if not said or top_k <= 0:
        return every_tool(allowed)
    ranked = list(ranker([text[:RANK_CHARS] for text in said[-2:]], allowed))
    if not ranked:
        return every_tool(allowed)
    picked = [t for t in ranked if t in allowed][:top_k]
    others = tuple(t for t in allowed if t not in picked)
    return ToolOffer(tuple(picked), others)


async def offer_for(
    ranker: Ranker | None,
    allowed: Sequence[str],
    messages: Sequence[BaseMessage],
    top_k: int,
) -> ToolOffer:
    """The offer for the next model call of a turn (see the module); the ranking runs in
    the CPU pool (it reads a person's message with many patterns)."""
    if ranker is None or top_k <= 0 or asked_outside(messages):
        return every_tool(allowed)
    first = not any(isinstance(m, AIMessage) and m.tool_calls for m in this_turn(messages))
    offer = await off_loop(narrow, ranker, list(allowed), _said(messages), top_k)
    return replace(offer, required=True) if offer.narrowed and first else offer


def bind_options(offer: ToolOffer) -> dict[str, Any]:
    """``bind_tools``' options for ``offer``: a call asked for (``tool_choice``)."""
    return {"tool_choice": "required"} if offer.required else {}
