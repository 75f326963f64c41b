"""The planner's decision for one model call: a tool call, a question or an answer.

* last message is a person's → recognise the intent (``intents``), fill the arguments
  (``args``) and propose one tool call; ask for a missing required argument of a bound
  tool (the person's next message then completes that request); list the capabilities
  when nothing matches;
* last messages are tool results → write the final answer from them (``answers``).

The language (Russian when the person's latest message has Cyrillic) holds for the turn.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from app.agent.planner.answers import capabilities_answer, clarification, final_answer
from app.agent.planner.args import extract_args, missing_args
from app.agent.planner.context import turn_context
from app.agent.planner.intents import choose_tool, matching
from app.agent.planner.phrases import CAPABILITIES, pick, say
from app.agent.planner.request import Request
from app.agent.planner.text import Lang, detect_lang


@dataclass(frozen=True)
class Reply:
    content: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)


def _latest_human(messages: list[BaseMessage]) -> HumanMessage | None:
    for message in reversed(messages):
        if isinstance(message, HumanMessage):
            return message
    return None


def _text(message: BaseMessage | None) -> str:
    return message.text if message is not None else ""


def _call_id(messages: list[BaseMessage], tool: str, args: dict[str, Any]) -> str:
    payload = json.dumps(args, sort_keys=True)
    seed = f"{len(messages)}|{_text(_latest_human(messages))}|{tool}|{payload}"
    return "call_" + hashlib.sha1(seed.encode()).hexdigest()[:16]


def _question_asked(messages: list[BaseMessage]) -> str | None:
    """The person's previous request when the planner answered it with a question (an AI
    message without tool calls right after it), so "prod" can complete "deploy 5"."""
    if len(messages) < 3 or not isinstance(messages[-1], HumanMessage):
        return None
    ai, before = messages[-2], messages[-3]
    if isinstance(ai, AIMessage) and not ai.tool_calls and isinstance(before, HumanMessage):
        return before.text
    return None


def plan_call(text: str, messages: list[BaseMessage], bound: Collection[str] | None) -> Reply:
    """The reply to a person's request ``text`` (the rest of ``messages`` gives context)."""
    ctx = turn_context(messages)
    req = Request.build(text, ctx)
    earlier = _question_asked(messages)
    if earlier and not matching(req.prefix.lower())[0]:
        combined = Request.build(f"{earlier}\n{text}", ctx)
        if matching(combined.prefix.lower())[0]:
            req = combined
    tool = choose_tool(req.prefix.lower(), bound)
    if tool is None:
        return Reply(capabilities_answer(bound, req.lang))
    args = extract_args(tool, req)
    missing = missing_args(tool, args)
    if missing and (bound is None or tool in bound):
        return Reply(clarification(tool, missing, req.lang))
    call = {"name": tool, "args": args, "id": _call_id(messages, tool, args), "type": "tool_call"}
    action = pick(CAPABILITIES[tool], req.lang)
    return Reply(say("calling", req.lang, action=action, tool=tool), [call])


def plan_reply(messages: list[BaseMessage], bound: Collection[str] | None) -> Reply:
    """The planner's reply to a conversation (see the module docstring)."""
    human = _latest_human(messages)
    lang: Lang = detect_lang(_text(human))
    if messages and isinstance(messages[-1], ToolMessage):
        return Reply(final_answer(messages, lang))
    if messages and isinstance(messages[-1], HumanMessage):
        return plan_call(_text(messages[-1]), messages, bound)
    return Reply(capabilities_answer(bound, lang))
