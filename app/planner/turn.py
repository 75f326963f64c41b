"""The current turn, read from the conversation: the person's latest message, the request
it answers (when the planner asked a question), and the steps taken since — each tool
call the planner proposed, with its result once the tool node has answered.

A message answers an earlier request when the previous turn ended with the planner's
question: an AI message without tool calls that followed either no tool at all (a missing
argument was asked for), a lookup the planner made for another tool (several or no
matches), or a tool's follow-up question (a database's schemas when tables were asked
for: which schema?). Then
"prod" completes "deploy dashboard 5", and "7" or "dashboard 7 in dev" picks a dashboard
(:mod:`app.planner.picks`). The conversation is read without its system messages (the
prompt, the turn's facts and page: :func:`app.planner.plan.plan_reply` leaves them out).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from app.i18n import detect_lang
from app.planner.intents import choose_tool
from app.planner.results import Result, read_result
from app.planner.text import Lang
from app.planner.tools import knowledge

SHORT_ANSWER_WORDS = 3


@dataclass(frozen=True)
class Step:
    call: dict[str, Any]  # name, args, id
    result: Result | None = None

    @property
    def tool(self) -> str:
        return str(self.call.get("name") or "")

    @property
    def args(self) -> dict[str, Any]:
        return dict(self.call.get("args") or {})


@dataclass(frozen=True)
class Turn:
    text: str  # the person's latest message ("" when there is none)
    earlier: str | None = None  # the request that message answers
    steps: tuple[Step, ...] = field(default_factory=tuple)
    ended_with_tool: bool = False  # the conversation's last message is a tool result
    size: int = 0  # how many messages the conversation has (for call ids)
    said_in: Lang | None = None  # the turn's language as its facts state it (the page's)

    @property
    def lang(self) -> Lang:
        """The language the turn's facts state (the page's), else Russian when
        the message has Cyrillic; a short answer to a question ("#9", "prod") keeps the
        language of the request it completes."""
        if self.said_in is not None:
            return self.said_in
        if self.earlier and len(self.text.split()) <= SHORT_ANSWER_WORDS:
            return detect_lang(self.text + " " + self.earlier)
        return detect_lang(self.text)

    @property
    def last(self) -> Step | None:
        return self.steps[-1] if self.steps else None

    def called(self, tool: str) -> bool:
        return any(step.tool == tool for step in self.steps)

    def has_call(self, tool: str, args: dict[str, Any]) -> bool:
        return any(step.tool == tool and step.args == args for step in self.steps)


def _text(message: BaseMessage) -> str:
    return message.text if isinstance(message.text, str) else str(message.content)


def _steps(messages: list[BaseMessage]) -> tuple[Step, ...]:
    results = {
        m.tool_call_id: read_result(_text(m)) for m in messages if isinstance(m, ToolMessage)
    }
    steps: list[Step] = []
    for message in messages:
        if isinstance(message, AIMessage):
            steps += [Step(dict(c), results.get(c.get("id") or "")) for c in message.tool_calls]
    return tuple(steps)


def _earlier(messages: list[BaseMessage], human: int) -> str | None:
    """The request the message at ``human`` answers, if the planner asked a question."""
    if human < 2 or not isinstance(messages[human - 1], AIMessage):
        return None
    if messages[human - 1].tool_calls:  # type: ignore[attr-defined]
        return None
    previous = next(
        (i for i in range(human - 2, -1, -1) if isinstance(messages[i], HumanMessage)), None
    )
    if previous is None:
        return None
    between = _steps(messages[previous + 1 : human - 1])
    text = _text(messages[previous])
    if not between:
        return text
    last = knowledge(between[-1].tool)
    if last.lookup is not None and not _is_lookup(choose_tool(text.lower(), None)):
        return text
    if last.follow_up is not None and last.follow_up.wanted.search(text):  # it asked which
        return text
    return None


def _is_lookup(tool: str | None) -> bool:
    return tool is not None and knowledge(tool).lookup is not None


def read_turn(messages: list[BaseMessage]) -> Turn:
    human = next(
        (i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], HumanMessage)),
        None,
    )
    ended = bool(messages) and isinstance(messages[-1], ToolMessage)
    if human is None:
        return Turn("", None, _steps(messages), ended, len(messages))
    return Turn(
        text=_text(messages[human]),
        earlier=_earlier(messages, human),
        steps=_steps(messages[human + 1 :]),
        ended_with_tool=ended,
        size=len(messages),
    )
