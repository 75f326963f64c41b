"""A tool's result as JSON data for the doors (``ToolEndEvent.data``), capped in size."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from app.agent.tool_result import DATA_LIMIT_BYTES, tool_data


class Row(BaseModel):
    id: int
    name: str


def size(value: Any) -> int:
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


@pytest.mark.parametrize(
    ("result", "expected"),
    [
        # an object is the data as it is
        pytest.param({"count": 2, "items": [1, 2]}, {"count": 2, "items": [1, 2]}, id="dict"),
        # a list too (the MCP door wraps a non-object under "result")
        pytest.param([1, 2, 3], [1, 2, 3], id="list"),
        # a pydantic model is dumped as JSON
        pytest.param(Row(id=1, name="a"), {"id": 1, "name": "a"}, id="model"),
        # values JSON cannot hold become text (dates, uuids...)
        pytest.param({"when": {1, 2}}, {"when": "{1, 2}"}, id="not_json"),
        # a text result is not data: the text is the result
        pytest.param("plain text", None, id="text"),
        pytest.param(None, None, id="none"),
    ],
)
def test_a_result_under_the_cap_is_the_data_itself(result: Any, expected: Any) -> None:
    assert tool_data(result) == (expected, False)


def test_a_long_list_keeps_its_first_items_within_the_cap() -> None:
    result = {"count": 5000, "items": [{"id": i, "title": "x" * 40} for i in range(5000)]}
    data, truncated = tool_data(result)
    assert truncated is True and size(data) <= DATA_LIMIT_BYTES
    assert data["count"] == 5000
    assert data["items"][:3] == result["items"][:3] and len(data["items"]) > 100


def test_a_long_string_keeps_its_head() -> None:
    data, truncated = tool_data({"ddl": "é" * 100_000}, limit=1000)
    assert truncated and size(data) <= 1000 and data["ddl"].endswith("…")
