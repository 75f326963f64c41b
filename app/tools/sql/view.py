"""How the SQL tools' results are shown: a query's rows as a table, formatted SQL as code,
the database catalog one level at a time, a new dataset as facts linking to it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.views import (
    Cell,
    Column,
    Cut,
    Detail,
    FactsView,
    LinkedItem,
    LinkedListView,
    Links,
    TableView,
    TextView,
    ToolView,
    cell,
    dict_table,
    facts,
    numeric,
)


def execute_sql(result: Mapping[str, Any], links: Links) -> TableView:
    names = [str(c) for c in result.get("columns") or []]
    rows: list[list[Cell]] = []
    for raw in result.get("rows") or []:
        if isinstance(raw, Mapping):
            rows.append([cell(raw.get(n)) for n in names])
        elif isinstance(raw, Sequence) and not isinstance(raw, str):
            rows.append([cell(v) for v in raw])
    columns = [
        Column(
            key=f"c{i}",
            label=name,
            numeric=numeric([r[i] for r in rows]),
        )
        for i, name in enumerate(names)
    ]
    return TableView(
        columns=columns,
        rows=rows,
        row_count=int(result.get("row_count") or len(rows)),
        truncated=bool(result.get("truncated")),
        csv_name="query",
        cut=Cut.model_validate(result["cut"]) if result.get("cut") else None,
    )


def format_sql(result: Mapping[str, Any], links: Links) -> TextView:
    return TextView(text=str(result.get("sql") or ""), format="code", language="sql")


def explore_database(result: Mapping[str, Any], links: Links) -> ToolView:
    level = result.get("level")
    if level == "databases":
        items = [
            LinkedItem(
                title=str(d.get("name") or f"#{d.get('id')}"),
                url=links.database(d.get("id")),
                id=d.get("id"),
                details=[Detail(key="backend", value=cell(d.get("backend")))]
                if d.get("backend")
                else [],
            )
            for d in result.get("databases") or []
        ]
        return LinkedListView(
            object_type="database", items=items, total=len(items), env=result.get("env")
        )
    if level == "schemas":
        schemas = [{"schema": s} for s in result.get("schemas") or []]
        return dict_table(schemas, ("schema",), csv_name="schemas")
    if level == "tables":
        return dict_table(result.get("tables") or [], ("name", "type"), csv_name="tables")
    return dict_table(result.get("columns") or [], ("name", "type"), csv_name="columns")


def create_dataset(result: Mapping[str, Any], links: Links) -> FactsView:
    flat = {
        "dataset": result.get("table_name"),
        "id": result.get("id"),
        "kind": result.get("kind"),
        "database": result.get("database"),
        "schema": result.get("schema"),
        "env": result.get("env"),
    }
    view = facts(flat, links, tuple(flat))
    url = links.dataset(result.get("id"))
    return FactsView(
        facts=[f.model_copy(update={"url": url}) if f.key == "dataset" else f for f in view.facts]
    )
