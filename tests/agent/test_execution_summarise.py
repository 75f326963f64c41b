"""Execution wrappers: every TEST_EDGE of Tools.Summarise (a long result cut to what a
model reads), huge inputs included. Retry and Timeout: test_execution.py."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from app.agent.execution import summarise_response
from tests.waiting import WAIT_S

ARRAY = json.dumps(
    [{"id": i, "dashboard_title": f"Sales {i}", "pad": "x" * 60} for i in range(100)]
)
OBJECT = json.dumps({"count": 2, "owner": "alice", "blob": "y" * 5000})
SUPERSET_PAGE = json.dumps(
    {
        "count": 300,
        "ids": list(range(300)),
        "result": [{"id": i, "dashboard_title": f"D{i}"} for i in range(300)],
    }
)
PROSE = "The dashboard loads slowly. " * 200  # 5600 characters, many sentence ends


def _array_expected() -> str:
    items = json.loads(ARRAY)[:5]
    lines = "".join(f"\n - {json.dumps(item)}" for item in items)
    return f"Found 100 items:{lines}\n + 95 more."


SUMMARISE_CASES: list[Any] = [
    # ≤ 4000 characters: returned unchanged
    pytest.param("a" * 4000, lambda out: out == "a" * 4000, id="at_limit_unchanged"),
    # short JSON is left alone too
    pytest.param('[{"id": 1}]', lambda out: out == '[{"id": 1}]', id="short_json_unchanged"),
    # JSON array: Found N items + top 5 + "+ N-5 more."
    pytest.param(ARRAY, lambda out: out == _array_expected(), id="array"),
    # JSON object: keys and a sample of values
    pytest.param(
        OBJECT,
        lambda out: (
            out.startswith(
                "Result keys: count, owner, blob. Values: count=2, owner=alice, blob=yyy"
            )
            and out.endswith("...")
        ),
        id="object",
    ),
    # an object that is mostly one list: keys, then that list's top items
    pytest.param(
        SUPERSET_PAGE,
        lambda out: (
            out.startswith("Result keys: count, ids, result.")
            and "\nresult: Found 300 items:\n - " in out
            and out.endswith("+ 295 more.")
        ),
        id="object_with_big_list",
    ),
    # text: cut at the last sentence boundary before the limit, then "..."
    pytest.param(
        PROSE,
        lambda out: out.endswith("slowly....") and len(out) <= 4000 and len(out) > 3900,
        id="text_sentence_cut",
    ),
    # text with no sentence ends: cut at a word boundary
    pytest.param(
        "word " * 1000, lambda out: out.endswith("word...") and len(out) <= 4000, id="text_word_cut"
    ),
    # invalid JSON that looks like JSON is cut as text
    pytest.param(
        "[" + "1," * 3000,
        lambda out: len(out) <= 4000 and out.endswith("..."),
        id="broken_json_as_text",
    ),
]


@pytest.mark.parametrize(("text", "check"), SUMMARISE_CASES)
def test_summarise_response_edges(text: str, check: Any) -> None:
    out = summarise_response(text)
    assert len(out) <= 4000
    assert check(out), out[:300]


@pytest.mark.parametrize(
    "huge",
    [
        # 50 MB of one character: never parsed, cut at once
        pytest.param("x" * 50_000_000, id="50MB_text"),
        # a 10 MB JSON array of a million items
        pytest.param(json.dumps(list(range(1_000_000))), id="1M_item_array"),
        # absurd nesting must not blow the stack
        pytest.param("[" * 100_000 + "]" * 100_000, id="deep_nesting"),
        # one gigantic line with many sentences
        pytest.param("Ok. " * 2_000_000, id="8MB_prose"),
    ],
)
def test_summarise_terminates_on_huge_inputs(huge: str) -> None:
    started = time.perf_counter()
    out = summarise_response(huge)
    # a hang's bound, not a speed check (a quadratic walk of 8 MB takes hours); how fast
    # it is goes to bench/
    assert time.perf_counter() - started < WAIT_S
    assert 0 < len(out) <= 4000


def test_summarise_respects_a_custom_limit_and_non_string_input() -> None:
    out = summarise_response(list(range(500)), limit=200)
    assert out.startswith("Found 500 items:\n - 0\n") and len(out) <= 200
    assert summarise_response({"a": 1}) == '{"a": 1}'
