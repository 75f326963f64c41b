"""Where a turn's own messages say it must end before the model is asked again, and the
plain sentence it ends with (any model).

:func:`turn_limit` reads the turn so far (:func:`this_turn`):

* :data:`MAX_STEPS` steps that proposed calls in one turn (the step cap);
* the same call with the same arguments again (the guard refused it: ``repeated_call``;
  when the first one's result is in, that result is the answer: ``repeated_result``, said
  plainly, not as a problem: what the result holds, in the words a :data:`Reporter`
  gives (the composition root hands the offline planner's), else "Here is the result.").
  Arguments are compared as the tool reads them
  (:func:`call_key`: defaults filled in), and a call also as it would run (checked, on
  its environment) against how earlier calls ran (:func:`ran_with`: a search past its
  last page shows the last one, so asking for that page next is the same call again);
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
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, NamedTuple

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from pydantic import BaseModel, ValidationError

from app.facts import read_refusal
from app.i18n import t
from app.policy.risk import PLACING_ARGS

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
#: How a line the guard puts before a result for the model starts (it ends at a newline).
NOTE_PREFIX = "NOTE: "
#: What a tool's successful result holds, in a language: ``(tool, args as it ran, the
#: result as the model read it, lang)`` → sentences, or None (no words for it).
Reporter = Callable[[str, Mapping[str, Any], str, str], "str | None"]


#: A completed call's artifact key: how it ran (:func:`ran_with`).
RAN_KEY = "ran"


def _as_read(args: Mapping[str, Any], model: type[BaseModel] | None) -> Mapping[str, Any]:
    if model is None:
        return args
    try:
        return model.model_validate(args).model_dump(mode="json")
    except ValidationError:  # refused later, by the per-call policy; compared as written
        return args


def call_key(
    name: str,
    args: Mapping[str, Any],
    model: type[BaseModel] | None = None,
    env_id: str | None = None,
) -> str:
    """A call's identity in a turn: its tool, its arguments as its args ``model`` reads
    them (defaults filled in; as written where the model refuses them), and for a call as
    it runs, its environment (``env_id``: where the guard placed it, also as the value of
    the argument that places it, left out or written)."""
    read = _placed(_as_read(args, model), env_id)
    return json.dumps([name, read, env_id], sort_keys=True, default=str)


def _placed(args: Mapping[str, Any], env_id: str | None) -> dict[str, Any]:
    """``args`` with ``env_id`` (where a call ran) as the value of the argument that
    places it, when the tool has one."""
    placed = dict(args)
    placing = next((a for a in PLACING_ARGS if a in placed), None)
    if env_id is not None and placing is not None:
        placed[placing] = env_id
    return placed


def ran_with(args: BaseModel, result: Any, env_id: str | None) -> dict[str, Any]:
    """How a completed call ran: the arguments it was run with (``args``, checked) and
    where its result says otherwise the result's (a top-level value under an argument's
    name: a search asked for a page past its last shows the last one, and says ``page``),
    on ``env_id``."""
    if isinstance(result, BaseModel):
        result = result.model_dump(mode="json")
    asked = args.model_dump(mode="json")
    said: dict[str, Any] = {}
    if isinstance(result, Mapping):
        said = {k: v for k, v in result.items() if k in asked and isinstance(v, (str, int, float))}
    return {"args": dict(_as_read({**asked, **said}, type(args))), "env_id": env_id}


class Made(NamedTuple):
    """The calls a turn has made, by :func:`call_key`: as the model wrote them, and as they
    ran (checked, placed on an environment, and what their results said)."""

    asked: set[str]
    ran: set[str]


def made_in(turn: Sequence[BaseMessage], model_of: Any) -> Made:
    """The calls made in ``turn`` (``model_of(name)``: the tool's args model, or None)."""
    made = Made(set(), set())
    for m in turn:
        if isinstance(m, AIMessage):
            for c in m.tool_calls:
                made.asked.add(call_key(c["name"], c.get("args") or {}, model_of(c["name"])))
        elif isinstance(m, ToolMessage) and isinstance(m.artifact, Mapping):
            ran = m.artifact.get(RAN_KEY)
            if isinstance(ran, Mapping) and m.name:
                made.ran.add(call_key(m.name, ran.get("args") or {}, None, ran.get("env_id")))
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


def result_of(messages: Sequence[BaseMessage], tool: str) -> tuple[dict[str, Any], str] | None:
    """The turn's latest successful result of ``tool``: the arguments it ran with (its
    environment in the argument that places it) and its message to the model (without a
    note the guard put before it)."""
    for m in reversed(this_turn(messages)):
        if not isinstance(m, ToolMessage) or m.name != tool:
            continue
        content = str(m.content)
        ran = m.artifact.get(RAN_KEY) if isinstance(m.artifact, Mapping) else None
        if content.startswith(_FAILED) or not isinstance(ran, Mapping):
            continue
        if content.startswith(NOTE_PREFIX):  # the guard's word to the model, not the result
            content = content.partition("\n")[2]
        return _placed(ran.get("args") or {}, ran.get("env_id")), content
    return None


def ended(
    problem: Problem, lang: str, detail: str = "", count: int = 2, answer: str | None = None
) -> AIMessage:
    """The turn's last word when it ends for ``problem`` (``count``: how many times the
    model made that mistake in the turn; ``answer``: the words of a quiet ending, instead
    of its plain sentence)."""
    text = answer or t(f"model_{problem}", lang, steps=MAX_STEPS, tool=detail, count=count)
    if problem in QUIET:  # the turn's answer, plainly (its audit row says what happened)
        return AIMessage(content=text)
    return AIMessage(content=text, response_metadata={PROBLEM_KEY: problem})
