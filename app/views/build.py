"""Building a tool result's view: one builder per tool, else one per presentation kind.

:func:`build_view` is what the tool node calls with the declaration's ``presentation``,
the tool's raw (unsummarised) result and the call environment's Superset base URL. The
dashboard, SQL and environment tools are built here; backups, tasks, migrations and
the other writes in :mod:`app.views.build_ops`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from app.views import build_ops as ops
from app.views.cells import Links, cell, dict_table, numeric, said_in_words, without_paths
from app.views.models import (
    HEALTH_STATUSES,
    Cell,
    Column,
    Cut,
    Detail,
    HealthProblem,
    HealthView,
    LinkedItem,
    LinkedListView,
    TableView,
    TextView,
    ToolView,
)

Builder = Callable[[Mapping[str, Any], Links], ToolView | None]


# ---- dashboards -------------------------------------------------------------------------
def _owners(row: Mapping[str, Any]) -> str | None:
    names = []
    for o in row.get("owners") or []:
        if isinstance(o, Mapping):
            name = " ".join(str(o.get(k) or "") for k in ("first_name", "last_name")).strip()
            names.append(name or str(o.get("username") or ""))
        else:
            names.append(str(o))
    return ", ".join(n for n in names if n) or None


def search_dashboards(result: Mapping[str, Any], links: Links) -> LinkedListView:
    items = []
    for d in result.get("dashboards") or []:
        details = [
            Detail(key=k, value=cell(v))
            for k, v in (
                ("owners", _owners(d)),
                ("changed_at", d.get("changed_on")),
                ("slug", d.get("slug")),
            )
            if v not in (None, "")
        ]
        items.append(
            LinkedItem(
                title=str(d.get("title") or f"#{d.get('id')}"),
                url=links.dashboard(d.get("id")),
                id=d.get("id"),
                details=details,
            )
        )
    total = int(result.get("count") or len(items))
    return LinkedListView(object_type="dashboard", items=items, total=total, env=result.get("env"))


def _problem(chart: Mapping[str, Any], links: Links) -> HealthProblem | None:
    status = str(chart.get("status") or "")
    reason = str(chart.get("error") or "")
    if status == "error":
        status = "failing"
    elif chart.get("slow") and status == "ok":
        status, reason = "slow", f"{float(chart.get('ms') or 0):.0f} ms"
    elif status not in ("empty", "unchecked"):
        return None
    name = str(chart.get("name") or f"chart {chart.get('id')}")
    return HealthProblem(name=name, status=status, reason=reason, url=links.chart(chart.get("id")))


def health(result: Mapping[str, Any], links: Links) -> HealthView | None:
    dash = result.get("dashboard")
    if not isinstance(dash, Mapping):
        return None
    charts = [c for c in result.get("charts") or [] if isinstance(c, Mapping)]
    problems = [p for c in charts if (p := _problem(c, links)) is not None]
    counts = dict.fromkeys(HEALTH_STATUSES, 0)
    counts["ok"] = len(charts) - len(problems)
    for p in problems:
        counts[p.status] += 1
    stale = result.get("stale_datasets") or []
    counts["stale"] = len(stale)
    problems += [
        HealthProblem(
            name=str(d.get("name") or d.get("id")),
            status="stale",
            reason=str(d.get("changed_on") or ""),
            url=links.dataset(d.get("id")),
        )
        for d in stale
    ]
    order = {s: i for i, s in enumerate(("failing", "slow", "empty", "unchecked", "stale"))}
    problems.sort(key=lambda p: order.get(p.status, 9))
    return HealthView(
        dashboard=LinkedItem(
            title=str(dash.get("title") or f"#{dash.get('id')}"),
            url=links.dashboard(dash.get("id")),
            id=dash.get("id"),
        ),
        verdict=str(result.get("verdict") or ""),
        counts=counts,
        problems=problems,
        env=result.get("env"),
    )


def validation(result: Mapping[str, Any], links: Links) -> TableView:
    findings = [f for f in result.get("findings") or [] if isinstance(f, Mapping)]
    table = dict_table(findings, ("severity", "object", "issue"), csv_name="validation")
    return said_in_words(table, "severity")


def documentation(result: Mapping[str, Any], links: Links) -> TextView:
    return TextView(text=str(result.get("markdown") or ""), format="markdown")


# ---- SQL and databases -------------------------------------------------------------------
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


def audit_permissions(result: Mapping[str, Any], links: Links) -> TableView:
    rows = [
        {
            "name": r.get("name"),
            "permission_count": r.get("permission_count"),
            "users": ", ".join(map(str, r.get("users") or [])),
            "flags": "; ".join(map(str, r.get("flags") or [])),
        }
        for r in result.get("roles") or []
    ]
    return dict_table(rows, ("name", "permission_count", "users", "flags"), csv_name="roles")


# ---- meta -----------------------------------------------------------------------------------
def capabilities(result: Mapping[str, Any], links: Links) -> TableView:
    rows = [
        {"family": family, **tool}
        for family, tools in (result.get("groups") or {}).items()
        for tool in tools
    ]
    table = dict_table(rows, ("name", "family", "risk", "description"), csv_name="capabilities")
    return said_in_words(table, "risk")


def environments(result: Mapping[str, Any], links: Links) -> TableView:
    rows = [
        {
            **{k: e.get(k) for k in ("id", "name", "tier", "reachable", "in_maintenance")},
            "url": e.get("url") if str(e.get("url") or "").startswith(("http://", "https://"))
            else None,
        }
        for e in result.get("environments") or []
    ]  # fmt: skip
    table = dict_table(
        rows, ("id", "name", "tier", "url", "reachable", "in_maintenance"), csv_name="environments"
    )
    columns = [c.model_copy(update={"link": c.key == "url"}) for c in table.columns]
    return table.model_copy(update={"columns": columns})


BY_TOOL: dict[str, Builder] = {
    "search_dashboards": search_dashboards,
    "get_health_summary": health,
    "run_llm_validation": validation,
    "run_llm_documentation": documentation,
    "superset_execute_sql": execute_sql,
    "superset_format_sql": format_sql,
    "superset_explore_database": explore_database,
    "superset_audit_permissions": audit_permissions,
    "show_capabilities": capabilities,
    "list_environments": environments,
    **ops.BY_TOOL,
}


def build_view(
    presentation: str, tool_name: str, result: Any, *, superset_url: str | None = None
) -> ToolView | None:
    """The view of one tool result (None when there is nothing to present)."""
    links = Links(superset_url)
    if not isinstance(result, Mapping):
        if isinstance(result, str) and result.strip():
            return TextView(text=without_paths(result))
        return None
    builder = BY_TOOL.get(tool_name) or ops.BY_KIND.get(presentation)
    return builder(result, links) if builder is not None else None
