"""A turn reads its conversation's checkpoint before the run, and the run starts from that
read (``app.agent.checkpoint.read_before_run``): what the turn saw is what the run
continues, a write in between is never hidden, and a waiting confirmation is seen."""

from __future__ import annotations

import operator
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt

from app.agent.checkpoint import open_sqlite_saver, read_before_run


class _State(TypedDict, total=False):
    notes: Annotated[list[str], operator.add]
    owner: str


def _graph(saver: Any, *, ask: bool = False) -> Any:
    async def note(state: _State) -> dict[str, Any]:
        if ask:
            interrupt({"confirmation_id": "c1"})
        return {"notes": [f"seen {len(state.get('notes') or [])}"]}

    g = StateGraph(_State)
    g.add_node("note", note)
    g.add_edge(START, "note")
    g.add_edge("note", END)
    return g.compile(checkpointer=saver)


def _config(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


@pytest.fixture
async def saver(tmp_path: Path) -> AsyncIterator[Any]:
    """A SQLite checkpointer of the test's own, closed after the test."""
    saver = await open_sqlite_saver(tmp_path / "cp.db")
    try:
        yield saver
    finally:
        await saver.conn.close()


async def test_a_new_conversation_reads_empty_and_its_first_run_starts_fresh(saver: Any) -> None:
    graph = _graph(saver)
    before = await read_before_run(graph, _config("new"))
    assert before.values == {} and not before.interrupts
    out = await graph.ainvoke({"notes": ["hi"], "owner": "alice"}, _config("new"))
    assert out["notes"] == ["hi", "seen 1"]


async def test_the_run_continues_the_conversation_the_turn_read(saver: Any) -> None:
    graph = _graph(saver)
    await graph.ainvoke({"notes": ["one"], "owner": "alice"}, _config("t"))
    before = await read_before_run(graph, _config("t"))
    assert before.values["owner"] == "alice"
    assert before.values["notes"] == ["one", "seen 1"]
    out = await graph.ainvoke({"notes": ["two"]}, _config("t"))
    assert out["notes"] == ["one", "seen 1", "two", "seen 3"]
    again = await graph.aget_state(_config("t"))
    assert again.values["notes"] == out["notes"]


async def test_a_write_after_the_read_is_not_hidden_from_the_next_run(saver: Any) -> None:
    graph = _graph(saver)
    await graph.ainvoke({"notes": ["one"], "owner": "alice"}, _config("t"))
    await read_before_run(graph, _config("t"))
    await graph.aupdate_state(_config("t"), {"notes": ["edited"]})  # after the read
    out = await graph.ainvoke({"notes": ["two"]}, _config("t"))
    assert out["notes"] == ["one", "seen 1", "edited", "two", "seen 4"]


async def test_a_waiting_confirmation_is_seen_before_the_run(saver: Any) -> None:
    graph = _graph(saver, ask=True)
    await graph.ainvoke({"notes": ["one"], "owner": "alice"}, _config("t"))
    before = await read_before_run(graph, _config("t"))
    assert [i.value["confirmation_id"] for i in before.interrupts] == ["c1"]
    assert before.values["owner"] == "alice"
