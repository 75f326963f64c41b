"""What the view builders share: table cells and tables, links into one environment's
Superset (built from its configured base URL and an object's numeric id — never from a
URL found in Superset data), and the scrubbing of internal file paths out of anything a
view shows."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.views.models import Cell, Column, TableView

# ---- links and paths ------------------------------------------------------------------
_ABSOLUTE_PATH = re.compile(r"(?<![\w:/])(?:/[\w.@-]+){2,}/?|[A-Za-z]:\\[\w\\. -]+")
_HIDDEN_KEYS = re.compile(r"^(?:path|.*_path|file|filename|repository)$")


def _int_id(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    try:
        return int(str(value))
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class Links:
    """URLs of Superset objects in the environment at ``base`` (None: no links)."""

    base: str | None = None

    def _url(self, path: str, object_id: Any) -> str | None:
        number = _int_id(object_id)
        if not self.base or number is None or not self.base.startswith(("http://", "https://")):
            return None
        return self.base.rstrip("/") + path.format(id=number)

    def dashboard(self, object_id: Any) -> str | None:
        return self._url("/superset/dashboard/{id}/", object_id)

    def chart(self, object_id: Any) -> str | None:
        return self._url("/explore/?slice_id={id}", object_id)

    def dataset(self, object_id: Any) -> str | None:
        return self._url("/explore/?datasource_type=table&datasource_id={id}", object_id)

    def database(self, object_id: Any) -> str | None:
        return self._url("/sqllab/?dbid={id}", object_id)


def hidden_key(key: str) -> bool:
    """Keys whose values are internal file paths (a backup's ``path`` ...)."""
    return bool(_HIDDEN_KEYS.match(key))


def without_paths(text: str) -> str:
    """``text`` with every absolute file path replaced by an ellipsis."""
    return _ABSOLUTE_PATH.sub("…", text)


# ---- cells and tables -----------------------------------------------------------------
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
