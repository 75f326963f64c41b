"""Building a tool result's view: the tool's own builder (declared with its
implementation, ``app/tools/<family>/view.py``), else the generic one of its spec's
presentation kind (:data:`BY_KIND`).

:func:`build_view` is what the tool node calls with the spec's ``presentation``, the
tool's raw (unsummarised) result, the call environment's Superset base URL and the tool's
own builder. The generic builders here serve any tool: facts, a table, a linked list,
tasks, a diff (:mod:`app.views.diffs`) and text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from app.views import models as vm
from app.views.cells import Links, cell, dict_table, hidden_key, without_paths
from app.views.diffs import diff

#: (result, links) -> the view of one result (None: nothing to present)
Builder = Callable[[Mapping[str, Any], Links], vm.ToolView | None]
_QUIET_KEYS = {"message", "summary", "note", "uuid"}


def facts(result: Mapping[str, Any], links: Links, keys: tuple[str, ...] = ()) -> vm.FactsView:
    """Top-level scalars as facts (``keys`` first and only, when given); never a path."""
    wanted = keys or tuple(k for k in result if k not in _QUIET_KEYS)
    out = []
    for key in wanted:
        value = result.get(key)
        if hidden_key(key) or value is None or value == "" or isinstance(value, Mapping | list):
            continue
        url = value if key == "url" and str(value).startswith(("http://", "https://")) else None
        out.append(vm.Fact(key=key, value=cell(value), url=url))
    return vm.FactsView(facts=out)


# ---- tasks -----------------------------------------------------------------------------
def _task(row: Mapping[str, Any]) -> vm.TaskRow:
    return vm.TaskRow(
        task_id=str(row.get("task_id") or ""),
        kind=str(row.get("kind") or ""),
        status=str(row.get("status") or ""),
        step=row.get("step") if isinstance(row.get("step"), int) else None,
        total=row.get("total") if isinstance(row.get("total"), int) else None,
        message=without_paths(str(row.get("message") or "")),
        error=without_paths(str(row["error"])) if row.get("error") else None,
        env_id=row.get("env_id"),
        updated_at=row.get("updated_at"),
    )


def tasks(result: Mapping[str, Any], links: Links) -> vm.TasksView:
    rows = [result["task"]] if isinstance(result.get("task"), Mapping) else result.get("tasks")
    return vm.TasksView(tasks=[_task(r) for r in rows or [] if isinstance(r, Mapping)])


# ---- fallbacks by presentation kind -----------------------------------------------------
def first_table(result: Mapping[str, Any], links: Links) -> vm.TableView | None:
    for value in result.values():
        if isinstance(value, list) and value and all(isinstance(r, Mapping) for r in value):
            return dict_table(value, list(value[0]))
    return None


def linked_list(result: Mapping[str, Any], links: Links) -> vm.LinkedListView | None:
    table = first_table(result, links)
    if table is None:
        return None
    items = [
        vm.LinkedItem(title=str(row[0]), id=row[0] if isinstance(row[0], int | str) else None)
        for row in table.rows
        if row
    ]
    return vm.LinkedListView(object_type="object", items=items, total=len(items))


def text(result: Mapping[str, Any], links: Links) -> vm.TextView | None:
    for key in ("markdown", "text", "sql", "message"):
        if isinstance(result.get(key), str):
            return vm.TextView(text=without_paths(result[key]))
    return None


BY_KIND: dict[str, Builder] = {
    "facts": facts,
    "table": first_table,
    "linked_list": linked_list,
    "tasks": tasks,
    "diff": diff,
    "text": text,
}


def build_view(
    presentation: str,
    result: Any,
    *,
    superset_url: str | None = None,
    builder: Builder | None = None,
) -> vm.ToolView | None:
    """The view of one tool result (None when there is nothing to present): ``builder``
    (the tool's own), else the generic builder of ``presentation``."""
    links = Links(superset_url)
    if not isinstance(result, Mapping):
        if isinstance(result, str) and result.strip():
            return vm.TextView(text=without_paths(result))
        return None
    chosen = builder or BY_KIND.get(presentation)
    return chosen(result, links) if chosen is not None else None
