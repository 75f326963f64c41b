"""'Undo that' offline: the planner reads the change to undo from the conversation (the
undo id an undoable write's result gave), the latest one no undo named yet; an id the
person wrote wins; with none it asks (it never guesses)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from tests.planner.planner_turns import planner, system

FIRST, SECOND = "a" * 32, "b" * 32


def _write(tool: str, undo_id: str, call_id: str) -> list[BaseMessage]:
    call = {"name": tool, "args": {"env_id": "prod"}, "id": call_id}
    result = {"undo_id": undo_id, "undo_until": "2026-06-08T12:00:00+00:00", "active": True}
    return [AIMessage("", tool_calls=[call]), ToolMessage(json.dumps(result), tool_call_id=call_id)]


def conversation(*turns: list[BaseMessage], say: str) -> list[BaseMessage]:
    messages: list[BaseMessage] = [system()]
    for turn in turns:
        messages += [HumanMessage("do it"), *turn, AIMessage("Done.")]
    return [*messages, HumanMessage(say)]


def proposed(messages: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    reply = planner().invoke(messages)
    return [(c["name"], c["args"]) for c in reply.tool_calls]


@pytest.mark.parametrize(
    "say",
    [
        "undo that",
        "Undo the last change",
        "revert that please",
        "отмени это",
        "Отмени последнее изменение",
        "верни как было",
    ],
)
def test_undo_that_undoes_the_latest_change(say: str) -> None:
    messages = conversation(
        _write("start_maintenance", FIRST, "c1"), _write("create_branch", SECOND, "c2"), say=say
    )
    assert proposed(messages) == [("undo_change", {"undo_id": SECOND})]


def test_a_change_already_undone_is_skipped_for_the_one_before() -> None:
    undone = [
        AIMessage("", tool_calls=[{"name": "undo_change", "args": {"undo_id": SECOND}, "id": "u"}]),
        ToolMessage(json.dumps({"undo_id": SECOND, "undone": "x"}), tool_call_id="u"),
    ]
    messages = conversation(
        _write("start_maintenance", FIRST, "c1"), _write("create_branch", SECOND, "c2"), undone,
        say="undo that",
    )  # fmt: skip
    assert proposed(messages) == [("undo_change", {"undo_id": FIRST})]


def test_an_id_the_person_wrote_wins() -> None:
    messages = conversation(_write("create_branch", SECOND, "c2"), say=f"undo change {FIRST}")
    assert proposed(messages) == [("undo_change", {"undo_id": FIRST})]


def test_with_nothing_to_undo_the_planner_asks() -> None:
    reply = planner().invoke([system(), HumanMessage("undo that")])
    assert reply.tool_calls == []
    assert "To undo a change the agent made I need" in reply.text
