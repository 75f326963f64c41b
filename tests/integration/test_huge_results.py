"""A huge SQL result, through the agent with the product's tools on the Superset sandbox:
the view, the structured data, the event every door sends, the checkpoint and the
product's databases hold a bounded amount; the card, the HTTP event and the MCP text say
it was cut; the CSV download holds the same rows as the view.

The sandbox's SQLite makes the big result with ``WITH RECURSIVE``: one recursion counts
the rows, another doubles a text to the width asked for (``zeroblob()`` would be shorter,
but the policy rates a function it does not know as a write, so the call would need a
card)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from app.caps import json_size
from app.events import BaseEvent, ToolEndEvent
from app.mcp.results import collect
from app.superset.registry import EnvironmentRegistry
from app.views import TableView
from components.results.format import csv_bytes
from components.results.table import headers
from tests.agent.scripted import call, final_from_tool

pytestmark = pytest.mark.superset


def rows_of(n: int, width: int) -> str:
    """A read-only query of ``n`` rows, each with a value of ``width`` characters."""
    doublings = max(width.bit_length(), 1)
    return (
        f"WITH RECURSIVE r AS (SELECT 1 AS i UNION ALL SELECT i + 1 AS i FROM r WHERE i < {n}), "
        "w AS (SELECT 0 AS k, 'ab' AS s UNION ALL "
        f"SELECT k + 1 AS k, s || s AS s FROM w WHERE k < {doublings}) "
        f"SELECT r.i AS i, substr(w.s, 1, {width}) AS wide FROM r JOIN w ON w.k = {doublings}"
    )


def stored_bytes(root: Path) -> int:
    """The product's databases on disk: the app's and the checkpoints', with their WALs."""
    return sum(p.stat().st_size for p in root.rglob("*.db*") if p.is_file())


async def _events(items: list[BaseEvent]) -> AsyncIterator[BaseEvent]:
    for item in items:
        yield item


@pytest.mark.parametrize(
    ("sql", "row_limit", "cells_cut"),
    [
        # wide: 300 values of 40,000 characters (12 MB): values shortened, rows dropped
        (rows_of(300, 40_000), 300, True),
        # long: 10,000 rows of 800 characters (8 MB): the byte cap drops rows
        (rows_of(10_000, 800), 10_000, False),
        # many: 5,000 narrow rows (0.5 MB): the row cap holds
        (rows_of(5_000, 80), 5_000, False),
    ],
)
async def test_a_huge_result_is_cut_and_says_so_everywhere(
    harness: Any,
    registry: EnvironmentRegistry,
    tmp_path: Path,
    sql: str,
    row_limit: int,
    cells_cut: bool,
) -> None:
    caps = harness.parts.settings.result_caps()
    harness.serve(registry)
    warm = call("superset_execute_sql", sql="select 1 as n", env_id="dev")
    harness.use(warm, final_from_tool, real=True)
    await harness.turn("warm up", env_id="dev")  # the databases and their tables exist
    before = stored_bytes(tmp_path)

    big = call("superset_execute_sql", sql=sql, row_limit=row_limit, env_id="dev")
    harness.use(big, final_from_tool, real=True)
    events = await harness.turn("run the big query", env_id="dev")
    grown = stored_bytes(tmp_path) - before

    end = next(e for e in events if isinstance(e, ToolEndEvent))
    assert end.status == "completed", end.error
    view = end.view
    assert isinstance(view, TableView) and view.cut is not None
    assert view.row_count == row_limit  # what SQL Lab returned ...
    assert view.cut.rows == row_limit - len(view.rows) > 0  # ... and what the caps left out
    assert (view.cut.cells > 0) is cells_cut
    assert len(view.rows) <= caps.max_rows
    assert all(len(str(c)) <= caps.max_cell_chars for row in view.rows for c in row)
    assert json_size(view.model_dump(mode="json")) <= caps.max_bytes
    assert json_size(end.data) <= caps.max_bytes
    # the HTTP/SSE event says it in words, and carries a bounded amount
    assert end.cut_note.startswith("Cut to stay within the result limits")
    assert "more rows not shown" in end.cut_note
    assert ("long values shortened" in end.cut_note) is cells_cut
    assert len(end.model_dump_json()) <= 2 * caps.max_bytes + 8_000
    # the MCP door's text says it too
    outcome = await collect(_events(events), tool_name="superset_execute_sql")
    assert outcome.kind == "completed" and end.cut_note in outcome.text
    # the CSV download holds the view's rows, no more
    csv = csv_bytes(headers(view, "en"), view.rows)
    assert csv.count(b"\n") == len(view.rows) + 1 and len(csv) <= caps.max_bytes
    # the checkpoint keeps the capped view and a summary; the databases grew a bounded amount
    state = await (await harness.core.graph()).aget_state(
        {"configurable": {"thread_id": harness.conv_id}}
    )
    tool_message = [m for m in state.values["messages"] if m.type == "tool"][-1]
    assert json_size(tool_message.artifact["view"]) <= caps.max_bytes
    assert len(tool_message.content) <= harness.parts.settings.summarise_limit
    assert grown < 16 * caps.max_bytes, grown  # the query returned up to 12 MB
