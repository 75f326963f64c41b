"""One model call of a turn, and how a model's ordinary mistakes end (any model).

:func:`ask_model` is the model node's call. Before asking, the turn's own messages say
whether it must end instead (:func:`turn_limit`):

* :data:`MAX_STEPS` steps that proposed calls in one turn (the step cap);
* the same call with the same arguments again (the guard refused it: ``repeated_call``);
* a second call to a tool that does not exist, or a second call with arguments its args
  model refuses, after the first one's refusal told the model (the one repair try).

Then the model is asked. What it wrote is read leniently once (:func:`salvage`): a call
written as JSON in the text (fenced or not) becomes a tool call. A reply the server could
not parse (HTTP 4xx/5xx: llama.cpp answers 500 when the model names a tool it does not
know; when streaming, it sends that error inside the opened stream), or JSON that is not
a call, gets one repair try: the same prompt plus a note of what went wrong and which
tools exist. A second failure, or a model server out of reach,
ends the turn.

A turn that ends here ends with a plain sentence in the turn's language (an
``AIMessage`` whose ``response_metadata["problem"]`` names the reason: the runner puts it
on the ``message`` event) and an audit row. Nothing a model writes ends a turn in an
error.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Sequence
from typing import Any, Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from app.facts import read_refusal
from app.i18n import t

#: Steps (model replies that propose calls) one turn may take.
MAX_STEPS = 8
PROBLEM_KEY = "problem"
Problem = Literal[
    "step_cap", "repeated_call", "unknown_tool", "invalid_arguments", "unreadable", "unreachable"
]
_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_NAME_KEYS = ("name", "tool", "tool_name", "function")
_ARGS_KEYS = ("arguments", "args", "parameters", "input")


class Unreadable(Exception):
    """A reply that looks like a call but is not one (the repair note says why)."""


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


def turn_limit(messages: Sequence[BaseMessage]) -> tuple[Problem, str] | None:
    """Why the turn must end before the model is asked again (see the module), if it must:
    (the reason, what to log)."""
    turn = this_turn(messages)
    steps = sum(1 for m in turn if isinstance(m, AIMessage) and m.tool_calls)
    refusals = [
        r for m in turn if isinstance(m, ToolMessage) and (r := read_refusal(str(m.content)))
    ]
    codes = [r.code for r in refusals]
    if "repeated_call" in codes:
        tool = next(r.tool_name for r in refusals if r.code == "repeated_call")
        return "repeated_call", tool
    if codes.count("unknown_tool") >= 2:
        return "unknown_tool", ", ".join(r.tool_name for r in refusals if r.code == "unknown_tool")
    invalid = [r.tool_name for r in refusals if r.code == "invalid_arguments"]
    if any(invalid.count(name) >= 2 for name in invalid):
        return "invalid_arguments", invalid[-1]
    if steps >= MAX_STEPS:
        return "step_cap", f"{steps} steps"
    return None


def ended(problem: Problem, lang: str, detail: str = "") -> AIMessage:
    """The turn's last word when it ends for ``problem``."""
    text = t(f"model_{problem}", lang, steps=MAX_STEPS, tool=detail)
    return AIMessage(content=text, response_metadata={PROBLEM_KEY: problem})


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
    fenced = _FENCE.search(text)
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


def _repair_note(problem: str, tools: Sequence[str]) -> SystemMessage:
    names = ", ".join(tools) or "none"
    return SystemMessage(
        content=f"Your previous reply could not be read: {problem}. Answer again: either "
        f"plain text for the person, or one call of a tool from this list: {names}."
    )


def server_answer(exc: Exception) -> str | None:
    """What the model server answered, when ``exc`` is its answer (an HTTP error status,
    or an error it sent inside a stream it had already opened: llama.cpp streams its
    parse failure as ``data: {"error": {"code": 500, …}}`` after a 200, which the
    OpenAI client raises without a status); None when the server was not reached."""
    status = getattr(exc, "status_code", None)
    if isinstance(status, int):
        return f"the model server answered HTTP {status}: {exc}"[:500]
    body = getattr(exc, "body", None)
    if isinstance(body, dict) and ("code" in body or "message" in body):
        said = body.get("message") or exc
        return f"the model server answered an error ({body.get('code')}): {said}"[:500]
    return None


async def ask_model(
    bound: Any, prompt: list[BaseMessage], tools: Sequence[str], lang: str
) -> tuple[AIMessage, str | None]:
    """The model's reply to ``prompt`` (read leniently, repaired once), and what went wrong
    on the way (for the audit row; None when nothing did)."""
    note: str | None = None
    for attempt in (1, 2):
        unread: list[BaseMessage] = []
        try:
            raw = await bound.ainvoke(prompt)
        except Exception as exc:  # the model server: its error is the model's doing or not
            answered = server_answer(exc)
            if answered is None:
                return ended("unreachable", lang), f"{type(exc).__name__}: {exc}"[:500]
            note = answered
        else:
            try:
                return salvage(raw), note
            except Unreadable as exc:
                note, unread = str(exc), [raw]
        if attempt == 1:
            prompt = [*prompt, *unread, _repair_note(note, tools)]
    return ended("unreadable", lang), note
