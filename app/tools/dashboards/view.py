"""How the dashboard tools' results are shown: a search as a linked list, a health check
as its problems, a validation as a table of findings, documentation as Markdown, a delete
as the facts of what went and where its backup is."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.views import (
    HEALTH_STATUSES,
    Detail,
    FactsView,
    HealthProblem,
    HealthView,
    LinkedItem,
    LinkedListView,
    Links,
    TableView,
    TextView,
    cell,
    dict_table,
    facts,
    said_in_words,
)


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


def delete_dashboard(result: Mapping[str, Any], links: Links) -> FactsView:
    deleted = result.get("deleted") or {}
    flat = {
        "deleted": deleted.get("title"),
        "dashboard_id": deleted.get("id"),
        "env_id": result.get("env_id"),
        "backup_id": result.get("backup_id"),
        "task_id": result.get("task_id"),
    }
    return facts(flat, links, tuple(flat))
