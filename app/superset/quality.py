"""Dashboard quality rules and generated documentation (pure, over a loaded bundle)."""

from __future__ import annotations

from typing import Any

from app.i18n import catalog, said
from app.superset.health import SAYS, chart_dataset_id, said_object


def _has_description(dashboard: dict[str, Any]) -> bool:
    """A dashboard 'description': json_metadata.description or a markdown block."""
    meta = dashboard.get("json_metadata") or ""
    position = dashboard.get("position_json") or ""
    return '"description"' in str(meta) or '"MARKDOWN' in str(position)


def rule_findings(bundle: Any, checks: list[Any], lang: str = "en") -> list[dict[str, str]]:
    """Rule checks over a dashboard bundle; each finding has severity (a code), object and
    issue (said in ``lang``: English or Russian)."""
    found: list[dict[str, str]] = []

    def add(severity: str, kind: str, what: dict[str, Any], issue: str, **values: Any) -> None:
        obj = said_object(kind, lang, **what)
        text = said(SAYS[issue], lang, kind=said(SAYS[f"kind_{kind}"], lang), **values)
        found.append({"severity": severity, "object": obj, "issue": text})

    dash = {"id": bundle.id}
    if not bundle.title.strip():
        add("error", "dashboard", dash, "no_title")
    if not _has_description(bundle.dashboard):
        add("warning", "dashboard", dash, "no_dashboard_description")
    used: set[int] = set()
    for chart in bundle.charts:
        obj = {"name": chart.get("slice_name") or "", "id": chart["id"]}
        if not (chart.get("slice_name") or "").strip():
            add("error", "chart", obj, "no_title")
        if not (chart.get("description") or "").strip():
            add("info", "chart", obj, "no_description")
        if not chart.get("query_context"):
            add("warning", "chart", obj, "no_query_context")
        ds = chart_dataset_id(chart)
        if ds is not None:
            used.add(ds)
    for ds in bundle.datasets:
        if ds["id"] not in used:
            name = ds.get("table_name") or ds.get("name")
            add("info", "dataset", {"name": name, "id": ds["id"]}, "unused")
    for check in checks:
        if check.status == "error":
            failing = {"name": check.name, "id": check.id}
            add("error", "chart", failing, "chart_fails", error=check.error)
    return found


def _cell(value: Any) -> str:
    return str(value if value not in (None, "") else "—").replace("|", "\\|").replace("\n", " ")


def documentation_markdown(
    env_id: str, bundle: Any, datasets: list[dict[str, Any]], lang: str = "en"
) -> str:
    """The dashboard's documentation as markdown, its headings and labels in ``lang``
    (the catalog's ``[documentation]``); names and descriptions are Superset's own."""
    words = catalog("documentation")

    def w(key: str, **fmt: object) -> str:
        return said(words[key], lang, **fmt)

    d = bundle.dashboard
    ds_names = {ds["id"]: ds.get("table_name") or ds.get("name") for ds in datasets}
    owners = ", ".join(_owner(o) for o in d.get("owners") or []) or "—"
    lines = [f"# {bundle.title or w('untitled')}", ""]
    lines += [
        f"- {w('environment')}: `{env_id}`",
        f"- {w('dashboard_id', id=bundle.id, slug=_cell(d.get('slug')))}",
        f"- {w('published')}: {w('yes') if d.get('published') else w('no')}",
        f"- {w('owners')}: {owners}",
        f"- {w('last_changed')}: {_cell(d.get('changed_on'))}",
        "",
        f"## {w('charts', n=len(bundle.charts))}",
        "",
        f"| {w('chart')} | {w('type')} | {w('dataset')} | {w('description')} |",
        "|---|---|---|---|",
    ]
    for c in bundle.charts:
        ds_id = chart_dataset_id(c)
        lines.append(
            f"| {_cell(c.get('slice_name'))} | {_cell(c.get('viz_type'))} | "
            f"{_cell(ds_names.get(ds_id, ds_id))} | {_cell(c.get('description'))} |"
        )
    lines += ["", f"## {w('datasets', n=len(datasets))}"]
    for ds in datasets:
        db = (ds.get("database") or {}).get("database_name")
        lines += ["", f"### {ds.get('table_name')}", ""]
        lines.append(w("database_schema", db=_cell(db), schema=_cell(ds.get("schema"))))
        if ds.get("sql"):
            lines += ["", "```sql", str(ds["sql"]).strip(), "```"]
        lines += ["", f"| {w('column')} | {w('type')} | {w('description')} |", "|---|---|---|"]
        for col in ds.get("columns") or []:
            lines.append(
                f"| {_cell(col.get('column_name'))} | {_cell(col.get('type'))} | "
                f"{_cell(col.get('description'))} |"
            )
        metrics = ds.get("metrics") or []
        if metrics:
            lines += ["", f"| {w('metric')} | {w('expression')} |", "|---|---|"]
            for m in metrics:
                lines.append(f"| {_cell(m.get('metric_name'))} | `{_cell(m.get('expression'))}` |")
    return "\n".join(lines) + "\n"


def _owner(o: dict[str, Any]) -> str:
    return f"{o.get('first_name', '')} {o.get('last_name', '')}".strip() or str(o.get("id"))
