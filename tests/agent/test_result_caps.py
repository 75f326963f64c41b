"""The result caps as policy: which rows, values and items a result keeps, what its view's
``cut`` says was left out, and the sentence that says it (app.caps, app.views.capped)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from app.caps import ResultCaps, cap_rows, json_size
from app.settings import Settings
from app.views import (
    Column,
    Cut,
    LinkedItem,
    LinkedListView,
    TableView,
    TextView,
    cap_view,
    cut_sentence,
)

CAPS = ResultCaps(max_rows=5, max_cell_chars=10, max_bytes=4096)


@pytest.mark.parametrize(
    ("rows", "kept", "left_out", "shortened"),
    [
        # small enough: kept as is
        ([{"a": 1, "b": "x"}] * 3, 3, 0, 0),
        # more rows than the cap: the first ones are kept
        ([{"a": i} for i in range(8)], 5, 3, 0),
        # a long value is shortened to the cap, its row kept
        ([{"a": "y" * 50}], 1, 0, 1),
        # rows of sequences are cut the same way
        ([[1, "z" * 11], [2, "z"]], 2, 0, 1),
        # a nested value longer than the cap becomes its JSON text, shortened
        ([{"a": {"deep": "q" * 40}}], 1, 0, 1),
        # bytes: wide rows past the byte cap are left out even under the row cap
        ([{f"k{j}": "w" * 10 for j in range(60)} for _ in range(5)], 3, 2, 0),
    ],
)
def test_rows_are_cut_to_the_caps(
    rows: list[Any], kept: int, left_out: int, shortened: int
) -> None:
    cut = cap_rows(rows, CAPS)
    assert (len(cut.rows), cut.rows_left_out, cut.cells_shortened) == (kept, left_out, shortened)
    assert json_size(cut.rows) <= CAPS.max_bytes
    values = [v for r in cut.rows for v in (r.values() if isinstance(r, dict) else r)]
    assert all(len(v) <= CAPS.max_cell_chars for v in values if isinstance(v, str))


def table(rows: list[list[Any]], cut: Cut | None = None) -> TableView:
    return TableView(columns=[Column(key="c0", label="v")], rows=rows, row_count=len(rows), cut=cut)


@pytest.mark.parametrize(
    ("view", "rows", "cells", "chars"),  # chars: a text view's (see the test below)
    [
        # a table within the caps: no cut at all
        (table([["a"], ["b"]]), 0, 0, 0),
        # a table over the row cap, with long values
        (table([["v" * 20]] * 7), 2, 5, 0),
        # what a tool cut already is added to, not replaced
        (table([["v"]] * 7, Cut(rows=100)), 102, 0, 0),
        # a list view keeps its first items
        (
            LinkedListView(
                object_type="dashboard", items=[LinkedItem(title=f"d{i}") for i in range(9)]
            ),
            4,
            0,
            0,
        ),
    ],
)
def test_a_view_is_cut_to_the_caps_and_says_what_was_left_out(
    view: Any, rows: int, cells: int, chars: int
) -> None:
    capped = cap_view(view, CAPS)
    assert json_size(capped.model_dump(mode="json")) <= CAPS.max_bytes
    if not (rows or cells or chars):
        assert capped is view
        return
    assert capped.cut is not None
    assert (capped.cut.rows, capped.cut.cells, capped.cut.chars) == (rows, cells, chars)


@pytest.mark.parametrize(
    "text",
    [
        "ж" * 5000,  # two bytes a character
        "a" * 9000,  # one
        '"\\' * 3000,  # JSON escapes double each character
    ],
)
def test_a_text_view_keeps_its_head_within_the_bytes(text: str) -> None:
    capped = cap_view(TextView(text=text), CAPS)
    assert isinstance(capped, TextView) and capped.cut is not None
    assert json_size(capped.model_dump(mode="json")) <= CAPS.max_bytes
    head = capped.text.removesuffix("…")
    assert text.startswith(head) and capped.cut.chars == len(text) - len(head)
    assert len(head) > CAPS.max_bytes // 6  # the head fills the room, not a sliver of it


@pytest.mark.parametrize(
    ("cut", "table_view", "lang", "sentence"),
    [
        (None, True, "en", ""),  # nothing cut: nothing said
        (Cut(), True, "en", ""),  # an empty cut says nothing either
        (
            Cut(rows=3),
            True,
            "en",
            "Cut to stay within the result limits: 3 more rows not shown. "
            "The CSV download holds the same.",
        ),
        (Cut(rows=3), False, "en", "Cut to stay within the result limits: 3 more items not shown."),
        (
            Cut(chars=120),
            False,
            "ru",
            "Результат обрезан по ограничениям: не показано символов: 120.",
        ),
    ],
)
def test_the_cut_is_said_in_the_pages_language(
    cut: Cut | None, table_view: bool, lang: str, sentence: str
) -> None:
    assert cut_sentence(cut, lang, table=table_view) == sentence


@pytest.mark.parametrize(
    ("variable", "value", "read"),
    [
        # each cap is an operator's setting (SS_TOOLS_ prefix), read into its group
        ("SS_TOOLS_RESULT_MAX_ROWS", "50", lambda s: s.result_caps().max_rows),
        ("SS_TOOLS_RESULT_MAX_CELL_CHARS", "300", lambda s: s.result_caps().max_cell_chars),
        ("SS_TOOLS_RESULT_MAX_BYTES", "8192", lambda s: s.result_caps().max_bytes),
        ("SS_TOOLS_BUNDLE_MAX_BYTES", "2048", lambda s: s.bundle_caps().max_bytes),
        ("SS_TOOLS_BUNDLE_MAX_RATIO", "20", lambda s: s.bundle_caps().max_ratio),
        ("SS_TOOLS_BUNDLE_MAX_FILES", "7", lambda s: s.bundle_caps().max_members),
        ("SS_TOOLS_MODEL_INPUT_MAX_CHARS", "9000", lambda s: s.model_input_max_chars),
    ],
)
def test_every_cap_is_a_setting(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, read: Any
) -> None:
    assert read(Settings()) != int(value)  # not the default already
    monkeypatch.setenv(variable, value)
    assert read(Settings()) == int(value)


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("SS_TOOLS_RESULT_MAX_BYTES", "100"),  # too small to hold a view's own fields
        ("SS_TOOLS_MODEL_INPUT_MAX_CHARS", "10"),  # too small for the system text
        ("SS_TOOLS_BUNDLE_MAX_RATIO", "1"),  # every zip would be a bomb
    ],
)
def test_a_cap_too_small_to_work_is_refused_at_start(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValidationError, match=variable.removeprefix("SS_TOOLS_").lower()):
        Settings()
