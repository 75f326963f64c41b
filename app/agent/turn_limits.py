"""Where a turn's own messages say it must end before the model is asked again, and the
plain sentence it ends with (any model).

:func:`turn_limit` reads the turn so far (:func:`this_turn`):

* :data:`MAX_STEPS` steps that proposed calls in one turn (the step cap);
* the same call with the same arguments again (the guard refused it: ``repeated_call``;
  when the first one's result is in, that result is the answer: ``repeated_result``, said
  plainly, not as a problem). Arguments are compared as the tool reads them
  (:func:`call_key`: defaults filled in), and a call also stands for what its result says
  it ran (:func:`ran_with`: a search past its last page shows the last one, so asking for
  that page next is the same call again);
* a second call to a tool that does not exist, or a second call with arguments an args
  model refuses (any tool), after the first one's refusal told the model (the one
  repair try): the sentence says how many there were (:data:`MISTAKES`; the guard shows
  the first of each kind, the rest are audited, so a turn shows one line per mistake).

A turn that ends here, or on a model call that failed (``app.agent.nodes.model``), ends
with a plain sentence in the turn's language (:func:`ended`: an ``AIMessage`` whose
``response_metadata["problem"]`` names the reason; the runner puts it on the ``message``
event) and an audit row. Nothing a model writes ends a turn in an error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Literal, NamedTuple

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from pydantic import BaseModel, ValidationError

from app.facts import read_refusal
from app.i18n import t

#: Steps (model replies that propose calls) one turn may take.
MAX_STEPS = 8
PROBLEM_KEY = "problem"
Problem = Literal[
    "step_cap",
    "repeated_call",
    "repeated_result",
    "unknown_tool",
    "invalid_arguments",
    "unreadable",
    "unreachable",
    "timed_out",
]
#: Endings that are no problem for the person: the model asked again for a call whose
#: result it already has (a small model's habit after a read): the result is the answer.
QUIET: frozenset[Problem] = frozenset({"repeated_result"})
_FAILED = ("REFUSED", "ERROR", "CANCELLED")


#: A completed call's artifact key: the arguments it ran with, where they differ from those
#: asked (:func:`ran_with`).
RAN_KEY = "ran"


def _as_read(args: Mapping[str, Any], model: type[BaseModel] | None) -> Mapping[str, Any]:
    if model is None:
        return args
    try:
        return model.model_validate(args).model_dump(mode="json")
    except ValidationError:  # refused later, by the per-call policy; compared as written
        return args


def call_key(name: str, args: Mapping[str, Any], model: type[BaseModel] | None = None) -> str:
    """A call's identity in a turn: its tool and its arguments as its args ``model`` reads
    them (defaults filled in), or as written where the model refuses them."""
    read = _as_read(args, model)
    return json.dumps([name, read], sort_keys=True, default=str)


def ran_with(args: BaseModel, result: Any) -> dict[str, Any] | None:
    """The arguments a completed call ran with, where its result says they differ from
    those asked: a top-level value of the result under an argument's name (a search asked
    for a page past its last shows the last one, and says ``page``). None when the same."""
    if isinstance(result, BaseModel):
        result = result.model_dump(mode="json")
    asked = args.model_dump(mode="json")
    if not isinstance(result, Mapping):
        return None
    said = {k: v for k, v in result.items() if k in asked and isinstance(v, (str, int, float))}
    ran = dict(_as_read({**asked, **said}, type(args)))
    return ran if ran != asked else None


def made_in(turn: Sequence[BaseMessage], model_of: Any) -> set[str]:
    """The keys (:func:`call_key`) of the calls made in ``turn``: as asked
    (``model_of(name)``: the tool's args model, or None), and as their results say they
    ran (:data:`RAN_KEY`)."""
    made: set[str] = set()
    for m in turn:
        if isinstance(m, AIMessage):
            made |= {
                call_key(c["name"], c.get("args") or {}, model_of(c["name"])) for c in m.tool_calls
            }
        elif isinstance(m, ToolMessage) and isinstance(m.artifact, Mapping):
            ran = m.artifact.get(RAN_KEY)
            if isinstance(ran, Mapping) and m.name:
                made.add(call_key(m.name, ran))
    return made


#: Marks the call a door made directly (``app.agent.core.runs.call``): a run of its own.
DIRECT_KEY = "direct_call"


def _starts_a_run(message: BaseMessage) -> bool:
    return isinstance(message, HumanMessage) or bool(
        isinstance(message, AIMessage) and message.response_metadata.get(DIRECT_KEY)
    )


def this_turn(messages: Sequence[BaseMessage]) -> Sequence[BaseMessage]:
    """The messages of the turn so far: since the person's latest message, or since the
    call a door made directly (that call included)."""
    start = max((i for i, m in enumerate(messages) if _starts_a_run(m)), default=-1)
    if start >= 0 and isinstance(messages[start], HumanMessage):
        start += 1
    return messages[max(start, 0) :]


class Limit(NamedTuple):
    """Why a turn ends before the model is asked again: the reason, what to log (the
    tools concerned), and how many times the model made that mistake in the turn."""

    problem: Problem
    detail: str
    times: int = 1


#: The model's mistakes a turn forgives once (the refusal tells the model what exists or
#: what is wrong); a second of one kind ends the turn, saying how many there were.
MISTAKES: tuple[Problem, ...] = ("unknown_tool", "invalid_arguments")


def _names(names: Sequence[str]) -> str:
    return ", ".join(dict.fromkeys(names))


def turn_limit(messages: Sequence[BaseMessage]) -> Limit | None:
    """Why the turn must end before the model is asked again (see the module), if it must."""
    turn = this_turn(messages)
    steps = sum(1 for m in turn if isinstance(m, AIMessage) and m.tool_calls)
    refusals = [
        r for m in turn if isinstance(m, ToolMessage) and (r := read_refusal(str(m.content)))
    ]
    codes = [r.code for r in refusals]
    if "repeated_call" in codes:
        tool = next(r.tool_name for r in refusals if r.code == "repeated_call")
        done = any(
            isinstance(m, ToolMessage) and m.name == tool and not str(m.content).startswith(_FAILED)
            for m in turn
        )
        return Limit("repeated_result" if done else "repeated_call", tool)
    for mistake in MISTAKES:
        tools = [r.tool_name for r in refusals if r.code == mistake]
        if len(tools) >= 2:
            return Limit(mistake, _names(tools), len(tools))
    if steps >= MAX_STEPS:
        return Limit("step_cap", f"{steps} steps", steps)
    return None


def ended(problem: Problem, lang: str, detail: str = "", count: int = 2) -> AIMessage:
    """The turn's last word when it ends for ``problem`` (``count``: how many times the
    model made that mistake in the turn)."""
    text = t(f"model_{problem}", lang, steps=MAX_STEPS, tool=detail, count=count)
    if problem in QUIET:  # the turn's answer, plainly (its audit row says what happened)
        return AIMessage(content=text)
    return AIMessage(content=text, response_metadata={PROBLEM_KEY: problem})
