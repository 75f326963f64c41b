"""Dashboard tools: search, health, validation (rules + optional model review), docs."""

from __future__ import annotations

from typing import Any

from app.agent.tools.base import ToolDeps, ToolFn
from app.agent.tools.review import model_review
from app.superset.health import (
    chart_dataset_id,
    check_charts,
    load_bundle,
    stale_datasets,
    verdict,
)


async def search_dashboards(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """Search dashboards by title or slug in one Superset environment.

    Use when the user names or describes a dashboard, or to find a dashboard's id
    before another tool. Empty query lists all dashboards. Results are paged
    (page starts at 0); `count` is the total number of matches.
    """
    env = deps.env(args.env_id)
    client = deps.registry.client(env.id)
    data = await client.list_dashboards(args.query or "", args.page, args.page_size)
    return {
        "env": env.id,
        "count": data.get("count", 0),
        "page": args.page,
        "page_size": args.page_size,
        "dashboards": [
            {
                "id": d["id"],
                "title": d.get("dashboard_title"),
                "slug": d.get("slug"),
                "url": env.url + (d.get("url") or f"/superset/dashboard/{d['id']}/"),
                "published": d.get("published"),
                "changed_on": d.get("changed_on_utc"),
            }
            for d in data.get("result", [])
        ],
    }


async def get_health_summary(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """Check a dashboard's health: run every chart's query and inspect its datasets.

    Reports charts that fail, return no rows, are slow, or cannot be checked (no saved
    query), and datasets not changed for a long time. Verdict: ok | warning | broken,
    with the reasons. `dashboard_id` is the dashboard's id or slug.
    """
    env = deps.env(args.env_id)
    client = deps.registry.client(env.id)
    bundle = await load_bundle(client, args.dashboard_id)
    checks = await check_charts(client, bundle.charts)
    stale = await stale_datasets(client, bundle.datasets)
    report = verdict(checks, stale)
    return {
        "env": env.id,
        "dashboard": {"id": bundle.id, "title": bundle.title},
        "verdict": report.verdict,
        "reasons": report.reasons,
        "charts": [c.as_dict() for c in report.charts],
        "stale_datasets": report.stale_datasets,
    }


def _has_description(dashboard: dict[str, Any]) -> bool:
    """A dashboard 'description': json_metadata.description or a markdown block."""
    meta = dashboard.get("json_metadata") or ""
    position = dashboard.get("position_json") or ""
    return '"description"' in str(meta) or '"MARKDOWN' in str(position)


def rule_findings(bundle: Any, checks: list[Any]) -> list[dict[str, str]]:
    """Rule checks over a dashboard bundle; each finding has severity, object, issue."""
    found: list[dict[str, str]] = []

    def add(severity: str, obj: str, issue: str) -> None:
        found.append({"severity": severity, "object": obj, "issue": issue})

    dash = f"dashboard {bundle.id}"
    if not bundle.title.strip():
        add("error", dash, "dashboard has no title")
    if not _has_description(bundle.dashboard):
        add("warning", dash, "dashboard has no description (no markdown text block)")
    used: set[int] = set()
    for chart in bundle.charts:
        obj = f"chart '{chart.get('slice_name') or ''}' (id {chart['id']})"
        if not (chart.get("slice_name") or "").strip():
            add("error", obj, "chart has no title")
        if not (chart.get("description") or "").strip():
            add("info", obj, "chart has no description")
        if not chart.get("query_context"):
            add("warning", obj, "chart has no saved query context (re-save it in Superset)")
        ds = chart_dataset_id(chart)
        if ds is not None:
            used.add(ds)
    for ds in bundle.datasets:
        if ds["id"] not in used:
            name = ds.get("table_name") or ds.get("name")
            add("info", f"dataset '{name}' (id {ds['id']})", "not used by any chart here")
    for check in checks:
        if check.status == "error":
            add("error", f"chart '{check.name}' (id {check.id})", f"chart fails: {check.error}")
    return found


async def run_llm_validation(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """Validate a dashboard against quality rules, plus a model review when configured.

    Rules: missing titles/descriptions, charts without a saved query, datasets not
    used by any chart, charts that fail. The result says which checks ran
    (`checks_run`) and whether a model review was done.
    """
    env = deps.env(args.env_id)
    client = deps.registry.client(env.id)
    bundle = await load_bundle(client, args.dashboard_id)
    checks = await check_charts(client, bundle.charts)
    findings = rule_findings(bundle, checks)
    review = await model_review(deps.settings, bundle, findings)
    checks_run = ["rules"] + (["model"] if review.ran else [])
    counts = {s: sum(f["severity"] == s for f in findings) for s in ("error", "warning", "info")}
    return {
        "env": env.id,
        "dashboard": {"id": bundle.id, "title": bundle.title},
        "checks_run": checks_run,
        "model_review": review.text,
        "passed": counts["error"] == 0,
        "counts": counts,
        "findings": findings,
    }


def _cell(value: Any) -> str:
    return str(value if value not in (None, "") else "—").replace("|", "\\|").replace("\n", " ")


def documentation_markdown(env_id: str, bundle: Any, datasets: list[dict[str, Any]]) -> str:
    d = bundle.dashboard
    ds_names = {ds["id"]: ds.get("table_name") or ds.get("name") for ds in datasets}
    lines = [f"# {bundle.title or 'Untitled dashboard'}", ""]
    lines += [
        f"- Environment: `{env_id}`",
        f"- Dashboard id: {bundle.id}; slug: {_cell(d.get('slug'))}",
        f"- Published: {'yes' if d.get('published') else 'no'}",
        f"- Owners: {', '.join(_owner(o) for o in d.get('owners') or []) or '—'}",
        f"- Last changed: {_cell(d.get('changed_on'))}",
        "",
        f"## Charts ({len(bundle.charts)})",
        "",
        "| Chart | Type | Dataset | Description |",
        "|---|---|---|---|",
    ]
    for c in bundle.charts:
        ds = chart_dataset_id(c)
        lines.append(
            f"| {_cell(c.get('slice_name'))} | {_cell(c.get('viz_type'))} | "
            f"{_cell(ds_names.get(ds, ds))} | {_cell(c.get('description'))} |"
        )
    lines += ["", f"## Datasets ({len(datasets)})"]
    for ds in datasets:
        db = (ds.get("database") or {}).get("database_name")
        lines += ["", f"### {ds.get('table_name')}", ""]
        lines.append(f"Database: {_cell(db)}; schema: {_cell(ds.get('schema'))}")
        if ds.get("sql"):
            lines += ["", "```sql", str(ds["sql"]).strip(), "```"]
        lines += ["", "| Column | Type | Description |", "|---|---|---|"]
        for col in ds.get("columns") or []:
            lines.append(
                f"| {_cell(col.get('column_name'))} | {_cell(col.get('type'))} | "
                f"{_cell(col.get('description'))} |"
            )
        metrics = ds.get("metrics") or []
        if metrics:
            lines += ["", "| Metric | Expression |", "|---|---|"]
            for m in metrics:
                lines.append(f"| {_cell(m.get('metric_name'))} | `{_cell(m.get('expression'))}` |")
    return "\n".join(lines) + "\n"


def _owner(o: dict[str, Any]) -> str:
    return f"{o.get('first_name', '')} {o.get('last_name', '')}".strip() or str(o.get("id"))


async def run_llm_documentation(args: Any, deps: ToolDeps) -> dict[str, Any]:
    """Write markdown documentation of a dashboard: its charts (type, dataset) and its
    datasets (columns, metrics). Returns the markdown in `markdown`."""
    env = deps.env(args.env_id)
    client = deps.registry.client(env.id)
    bundle = await load_bundle(client, args.dashboard_id)
    datasets = [await client.get_dataset(ds["id"]) for ds in bundle.datasets]
    md = documentation_markdown(env.id, bundle, datasets)
    return {
        "env": env.id,
        "dashboard": {"id": bundle.id, "title": bundle.title},
        "markdown": md,
    }


TOOLS: dict[str, ToolFn] = {
    "search_dashboards": search_dashboards,
    "get_health_summary": get_health_summary,
    "run_llm_validation": run_llm_validation,
    "run_llm_documentation": run_llm_documentation,
}
