"""Cells and tables shared by the view builders."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from app.views.links import hidden_key, without_paths
from app.views.models import Cell, Column, TableView


def cell(value: Any) -> Cell:
    """A table cell: scalars as they are, anything else as compact JSON text; internal
    file paths never shown."""
    if value is None or isinstance(value, int | float | bool):
        return value
    if isinstance(value, str):
        return without_paths(value)
    if isinstance(value, Sequence) and all(isinstance(v, str | int | float) for v in value):
        return without_paths(", ".join(map(str, value)))
    return without_paths(json.dumps(value, ensure_ascii=False, default=str))


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def numeric(values: Sequence[Any]) -> bool:
    """A column of numbers (empty cells allowed, at least one number)."""
    return any(is_number(v) for v in values) and all(is_number(v) or v is None for v in values)


def said_in_words(table: TableView, *keys: str) -> TableView:
    """``table`` with the columns ``keys`` marked as codes the page says in words."""
    columns = [c.model_copy(update={"words": c.key in keys}) for c in table.columns]
    return table.model_copy(update={"columns": columns})


def dict_table(rows: Sequence[Mapping[str, Any]], keys: Sequence[str], **kw: Any) -> TableView:
    """Rows of dicts as a table with vocabulary columns ``keys`` (paths never shown)."""
    keys = [k for k in keys if not hidden_key(k)]
    cells = [[cell(r.get(k)) for k in keys] for r in rows if isinstance(r, Mapping)]
    columns = [Column(key=k, numeric=numeric([c[i] for c in cells])) for i, k in enumerate(keys)]
    return TableView(columns=columns, rows=cells, row_count=len(cells), **kw)
