"""The model's input budget (app.agent.budget): every model call sends at most
``model_input_max_chars`` characters — the system text, the tools, the conversation —
however long the conversation grows; the newest turns are kept, older tool results are
shortened first, a tool call never loses its result, system messages never change."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from app.agent.budget import OLD_RESULT_CHARS, InputBudget, within_budget
from app.events import MessageEvent
from tests.agent.scripted import Recorder, ScriptedChatModel, call

MARK = "left out: the model's input budget"


def sent_chars(messages: list[BaseMessage], tools_chars: int = 0) -> int:
    """What a call sends, counted on its own: texts, tool calls' names and arguments,
    and the tools' schemas."""
    total = tools_chars
    for m in messages:
        total += len(str(m.content))
        for c in getattr(m, "tool_calls", None) or []:
            total += len(c["name"]) + len(json.dumps(c["args"], ensure_ascii=False))
    return total


def check_pairs(messages: list[BaseMessage]) -> None:
    """Every call has its result right after its message, every result its call."""
    open_calls: set[str] = set()
    for m in messages:
        if isinstance(m, ToolMessage):
            assert m.tool_call_id in open_calls, f"an orphan result {m.tool_call_id}"
            open_calls.remove(m.tool_call_id)
        else:
            assert not open_calls, f"calls without results: {open_calls}"
            if isinstance(m, AIMessage):
                open_calls = {c["id"] for c in m.tool_calls}
    assert not open_calls, f"calls without results: {open_calls}"


def humans(messages: list[BaseMessage]) -> list[str]:
    return [str(m.content) for m in messages if isinstance(m, HumanMessage)]


# ---- the policy, on hand-made conversations ------------------------------------------
def turn(n: int, result_chars: int = 2000, ask: str = "") -> list[BaseMessage]:
    """Turn ``n``: a message, a call, its result of ``result_chars``, an answer."""
    ai = AIMessage(content="", tool_calls=[{"name": "t", "args": {"n": n}, "id": f"c{n}"}])
    return [
        HumanMessage(ask or f"question {n}"),
        ai,
        ToolMessage("r" * result_chars, tool_call_id=f"c{n}"),
        AIMessage(f"answer {n}"),
    ]


SYSTEM, FACTS = SystemMessage("system text"), SystemMessage("[TURN FACTS]")


def prompt(*turns: list[BaseMessage]) -> list[BaseMessage]:
    """The system text, the earlier turns, the facts, the current turn (as the model step
    puts them)."""
    *earlier, current = turns
    return [
        SYSTEM,
        *[m for t in earlier for m in t],
        FACTS,
        *current[:3],  # the current turn: its message, a call and its result so far
    ]


def two_calls(n: int, result_chars: int = 3000) -> list[BaseMessage]:
    """Turn ``n`` so far: a message and two calls, each with its result."""
    calls = [
        [AIMessage(content="", tool_calls=[{"name": "t", "args": {}, "id": f"c{n}{x}"}]),
         ToolMessage("s" * result_chars, tool_call_id=f"c{n}{x}")]
        for x in "ab"
    ]  # fmt: skip
    return [HumanMessage(f"question {n}"), *calls[0], *calls[1]]


FIVE = prompt(*(turn(n) for n in range(5)))


@pytest.mark.parametrize(
    ("messages", "max_chars", "kept_humans", "shortened"),
    [
        # it fits: nothing changes
        (FIVE, 20_000, [f"question {n}" for n in range(5)], 0),
        # a little over: older results shortened (oldest first), every turn kept
        (FIVE, 8_000, [f"question {n}" for n in range(5)], 2),
        # further over: all older results shortened, then the oldest turns dropped
        (FIVE, 3_000, ["question 3", "question 4"], 1),
        # the previous turn outlasts the current turn's earlier result (shortened first)
        (
            [SYSTEM, *turn(0), *turn(1), FACTS, *two_calls(2)],
            5_000,
            ["question 1", "question 2"],
            2,
        ),
        # the previous turn goes last: only the current one is left
        (prompt(turn(0), turn(1, 9000), turn(2)), 2_400, ["question 2"], 0),
        # a current turn too large on its own: its longest text is shortened in place
        (prompt(turn(0), turn(1, 20_000)), 3_000, ["question 1"], 1),
    ],
)
def test_a_call_is_cut_to_its_budget_oldest_and_least_useful_first(
    messages: list[BaseMessage], max_chars: int, kept_humans: list[str], shortened: int
) -> None:
    sent = within_budget(messages, InputBudget(max_chars))
    assert sent_chars(sent) <= max_chars
    assert humans(sent) == kept_humans
    assert sum(MARK in str(m.content) for m in sent) == shortened
    check_pairs(sent)
    assert [m for m in sent if isinstance(m, SystemMessage)] == [
        m for m in messages if isinstance(m, SystemMessage)
    ]
    if sent == messages:
        assert shortened == 0


def test_the_tools_count_against_the_budget() -> None:
    assert len(humans(within_budget(FIVE, InputBudget(18_000)))) == 5  # fits without tools
    sent = within_budget(FIVE, InputBudget(18_000, fixed_chars=14_000))
    assert sent_chars(sent, 14_000) <= 18_000
    assert humans(sent) == ["question 2", "question 3", "question 4"]


def test_an_older_result_keeps_its_head_and_says_how_much_was_left_out() -> None:
    sent = within_budget(FIVE, InputBudget(8_000))
    first = next(m for m in sent if isinstance(m, ToolMessage))
    assert first.content.startswith("r" * OLD_RESULT_CHARS)
    assert f"{2000 - OLD_RESULT_CHARS} more characters {MARK}" in first.content
    assert first.tool_call_id == "c0"


# ---- fifty turns through the agent, counted at a recording model ------------------------
class RecordingModel(ScriptedChatModel):
    """The scripted model, also recording how many characters its bound tools add."""

    tools_chars: int = 0

    def bind_tools(self, tools: Any, **kwargs: Any) -> RecordingModel:  # type: ignore[override]
        bound = super().bind_tools(tools, **kwargs)
        return bound.model_copy(update={"tools_chars": len(json.dumps(tools))})

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Any:
        self.recorder.sizes.append(sent_chars(messages, self.tools_chars))  # type: ignore[attr-defined]
        return super()._generate(messages, *args, **kwargs)


def dashboards(args: Any, deps: Any) -> dict[str, Any]:
    """A search with a big answer: about 3,650 characters, all of it read by the model
    (under the 4,000 of the summary)."""
    title = f"Dashboard {args.query} " + "of quarterly revenue by region and product line " * 2
    found = [{"id": i, "title": title, "slug": f"d-{i}"} for i in range(24)]
    return {"env": "dev", "count": len(found), "dashboards": found}


async def test_fifty_turns_stay_within_the_budget_newest_turns_kept(harness: Any) -> None:
    budget = 24_000
    # 50 turns in a burst: the per-user pace (20 a minute) is not what this test is about
    harness.configure(model_input_max_chars=budget, user_turns_per_minute=0)
    script: list[Any] = []
    for n in range(50):
        script += [call("search_dashboards", query=f"q{n}"), f"answer {n}"]
    recorder = Recorder(script)
    recorder.sizes = []  # type: ignore[attr-defined]

    async def search(args: Any, deps: Any) -> dict[str, Any]:
        return dashboards(args, deps)

    harness.use(model=RecordingModel(recorder=recorder), tools={"search_dashboards": search})
    conv = None
    for n in range(50):
        events = await harness.turn(f"find dashboards {n}", conv_id=conv)
        conv = harness.conv_id
        assert any(isinstance(e, MessageEvent) and e.text == f"answer {n}" for e in events)

    sizes: list[int] = recorder.sizes  # type: ignore[attr-defined]
    assert len(sizes) == len(recorder.seen) == 100 and max(sizes) <= budget
    state = await (await harness.core.graph()).aget_state({"configurable": {"thread_id": conv}})
    assert sent_chars(state.values["messages"]) > 5 * budget  # what was not sent
    assert all(len(str(m.content)) > 3000 for m in state.values["messages"] if m.type == "tool")
    for i, sent in enumerate(recorder.seen):
        n = i // 2  # two calls a turn: the call, then the answer after its result
        check_pairs(sent)
        said = humans(sent)
        assert said == [f"find dashboards {k}" for k in range(n - len(said) + 1, n + 1)]
        if n:  # the previous turn is always kept
            assert len(said) >= 2
        current = sent[max(j for j, m in enumerate(sent) if isinstance(m, HumanMessage)) :]
        assert not any(MARK in str(m.content) for m in current)  # the current turn whole
    last = recorder.seen[-1]
    assert "find dashboards 0" not in humans(last)  # the oldest turns were dropped ...
    older_results = [m for m in last if isinstance(m, ToolMessage)][:-1]
    assert older_results and all(MARK in str(m.content) for m in older_results)  # ... shortened
