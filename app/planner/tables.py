"""A tabular result as a sentence reads it: its rows, the values in them, the row that
stands out, a list of names cut short ("a, b, c and 4 more"), a table's columns.

Values from Superset are escaped; numbers are formatted for the language.
"""

from __future__ import annotations

from typing import Any

from app.planner.markup import md_escape
from app.planner.numbers import fmt_number, is_number
from app.planner.phrases import say
from app.planner.results import Result
from app.planner.text import Lang

MAX_NAMES = 5


def value_text(value: Any, lang: Lang) -> str:
    if is_number(value):
        return fmt_number(value, lang)
    if value is None:
        return "NULL"
    return md_escape(value if isinstance(value, str) else str(value))


def rows_of(result: Result) -> tuple[list[str], list[dict[str, Any]]]:
    """(columns, rows as dicts) of a result, its rows given as dicts or as lists."""
    columns = [str(c) for c in result.items("columns")]
    rows: list[dict[str, Any]] = []
    for row in result.items("rows"):
        if isinstance(row, dict):
            rows.append(row)
        elif isinstance(row, list):
            rows.append(dict(zip(columns, row, strict=False)))
    if not columns and rows:
        columns = list(rows[0])
    return columns, rows


def fields_of(columns: list[str], row: dict[str, Any], lang: Lang) -> str:
    """One row said whole: "region = East, total = 59,849.79" (its first four columns,
    then "…" when it has more)."""
    fields = ", ".join(f"{md_escape(c)} = {value_text(row.get(c), lang)}" for c in columns[:4])
    return fields + ("…" if len(columns) > 4 else "")


def leader(columns: list[str], rows: list[dict[str, Any]], lang: Lang) -> str:
    """The row that stands out ("; East has the highest total (59,849.79)"): the most of
    the last numeric column, named by its first other column ("" when there is none)."""
    numeric = [c for c in columns if all(is_number(r.get(c)) for r in rows)]
    labels = [c for c in columns if c not in numeric]
    if not numeric or not labels:
        return ""
    measure, label = numeric[-1], labels[0]
    top = max(rows, key=lambda r: r[measure])
    name, value = value_text(top.get(label), lang), fmt_number(top[measure], lang)
    return say("rows_leader", lang, name=name, column=md_escape(measure), value=value)


def names_of(items: list[Any], key: str, total: int, lang: Lang) -> str:
    """The first names of ``items`` (their ``key``, or the items themselves), and how
    many more ``total`` counts."""
    names = [md_escape(i.get(key) if isinstance(i, dict) else i) for i in items[:MAX_NAMES]]
    more = total - len(names)
    tail = say("and_more", lang, more=more) if more > 0 else ""
    return ", ".join(names) + tail


def columns_of(result: Result, total: int) -> str:
    """A table's first columns with their types: "id (INT), name (TEXT)…"."""
    cols = [c for c in result.items("columns") if isinstance(c, dict)]
    return ", ".join(
        f"{md_escape(c.get('name'))} ({md_escape(c.get('type'))})" for c in cols[:MAX_NAMES]
    ) + ("…" if total > MAX_NAMES else "")
