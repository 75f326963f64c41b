"""The model's input budget: what one model call sends stays within a number of
characters (``Settings.model_input_max_chars``; ``app/caps.py`` gives the reasons for the
default), however long the conversation grows.

A call sends the stable prefix (the system text, then the tools offered: the model
server caches it, so it is never touched), the turn's facts, the conversation and the
current turn. :func:`within_budget` counts all of it (:func:`chars`; the tools as
``InputBudget.fixed_chars``) and, while it is over, gives up what matters least first:

1. older turns' tool results are shortened to their head (:data:`OLD_RESULT_CHARS`),
   oldest first — the model keeps what was asked and answered, and the gist of results;
2. older turns are dropped whole, oldest first, except the previous turn (a short answer
   like "prod" or "7" completes the question the previous turn ended with);
3. the current turn's earlier tool results are shortened (its newest stays whole);
4. the previous turn is dropped;
5. last resort (a huge message or result in the current turn itself): the longest texts
   left are shortened, each to no less than :data:`MIN_KEEP` characters.

A turn is a person's message and everything after it up to the next one, so dropping
turns never separates a tool call from its result (an OpenAI-compatible server refuses
an orphan result, or a call without its result); a shortened text says so in place.
System messages (the system text, the facts, a repair note) are never changed. Pure:
messages in, messages out.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

OLD_RESULT_CHARS = 600
MIN_KEEP = 200
OVERHEAD = 16  # a message's role and separators, as a chat template writes them


@dataclass(frozen=True)
class InputBudget:
    """At most ``max_chars`` characters a call, ``fixed_chars`` of them the tools offered."""

    max_chars: int
    fixed_chars: int = 0


def _text_chars(content: object) -> int:
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list):
        return sum(
            len(str(part.get("text", ""))) if isinstance(part, dict) else len(str(part))
            for part in content
        )
    return len(str(content))


def chars(message: BaseMessage) -> int:
    """The characters ``message`` adds to a call: its text, its tool calls (name,
    arguments as JSON, id) or the id of the call it answers, and :data:`OVERHEAD`."""
    size = OVERHEAD + _text_chars(message.content)
    if isinstance(message, AIMessage):
        for call in message.tool_calls:
            args = json.dumps(call.get("args") or {}, ensure_ascii=False)
            size += len(call.get("name") or "") + len(args) + len(call.get("id") or "")
    if isinstance(message, ToolMessage):
        size += len(message.tool_call_id or "")
    return size


def shortened(text: str, keep: int) -> str:
    """``text``'s first ``keep`` characters and a note of how many were left out."""
    left = len(text) - keep
    return f"{text[:keep]}\n[… {left} more characters left out: the model's input budget]"


class _Trim:
    """The messages of one call and what has been given up so far."""

    def __init__(self, messages: Sequence[BaseMessage], budget: InputBudget) -> None:
        self.messages = list(messages)
        self.sizes = [chars(m) for m in self.messages]
        self.total = budget.fixed_chars + sum(self.sizes)
        self.limit = budget.max_chars
        self.dropped: set[int] = set()

    @property
    def over(self) -> int:
        return self.total - self.limit

    def shorten(self, i: int, keep: int) -> None:
        message, text = self.messages[i], self.messages[i].content
        if not isinstance(text, str) or len(shortened(text, keep)) >= len(text):
            return
        self.messages[i] = message.model_copy(update={"content": shortened(text, keep)})
        size = chars(self.messages[i])
        self.total += size - self.sizes[i]
        self.sizes[i] = size

    def drop(self, turn: list[int]) -> None:
        for i in turn:
            if i not in self.dropped:
                self.total -= self.sizes[i]
                self.dropped.add(i)

    def results(self, turns: list[list[int]]) -> list[int]:
        return [i for turn in turns for i in turn if isinstance(self.messages[i], ToolMessage)]

    def last_resort(self, kept: list[int]) -> None:
        """Shorten the longest texts left until the call fits (none below MIN_KEEP)."""
        room = [i for i in kept if isinstance(self.messages[i].content, str)]
        while self.over > 0 and room:
            i = max(room, key=lambda j: len(str(self.messages[j].content)))
            text = str(self.messages[i].content)
            before = self.total
            self.shorten(i, max(MIN_KEEP, len(text) - self.over - 80))
            if self.total >= before:
                room.remove(i)

    def kept(self) -> list[BaseMessage]:
        return [m for i, m in enumerate(self.messages) if i not in self.dropped]


def turns_of(messages: Sequence[BaseMessage]) -> list[list[int]]:
    """Indices of the conversation's messages by turn (system messages left out): a turn
    starts at a person's message; what comes before the first one is a turn too."""
    turns: list[list[int]] = []
    for i, message in enumerate(messages):
        if isinstance(message, SystemMessage):
            continue
        if isinstance(message, HumanMessage) or not turns:
            turns.append([])
        turns[-1].append(i)
    return turns


def within_budget(messages: Sequence[BaseMessage], budget: InputBudget | None) -> list[BaseMessage]:
    """``messages`` as one call sends them within ``budget`` (see the module); as they
    are when they fit, or when there is no budget."""
    if budget is None:
        return list(messages)
    trim = _Trim(messages, budget)
    if trim.over <= 0:
        return list(messages)
    turns = turns_of(messages)
    current, older = turns[-1] if turns else [], turns[:-1]
    for i in trim.results(older):  # 1. older turns' results, oldest first
        if trim.over <= 0:
            return trim.kept()
        trim.shorten(i, OLD_RESULT_CHARS)
    for turn in older[:-1]:  # 2. older turns, oldest first, the previous one kept
        if trim.over <= 0:
            return trim.kept()
        trim.drop(turn)
    for i in trim.results([current])[:-1]:  # 3. the current turn's earlier results
        if trim.over <= 0:
            return trim.kept()
        trim.shorten(i, OLD_RESULT_CHARS)
    if trim.over > 0 and older:  # 4. the previous turn
        trim.drop(older[-1])
    trim.last_resort(current)  # 5. the longest texts of the current turn
    return trim.kept()
