"""The migration service: copy dashboards between Superset environments (used by the
deploy, migration, backup and restore tools).

The plan (shared by :func:`preflight_migration`, which only reads, and the run):

1. resolve the dashboards on the source (id or slug) and export them (one zip);
2. read what the target holds (databases, datasets, dashboards, charts, with uuids);
3. remap the bundle onto the target (:func:`app.superset.remap.remap_bundle`): databases by name
   or ``database_mapping``, datasets by table, dashboards by slug. A source database with
   no match on the target is an error before anything is written: an import would
   otherwise create a connection on the target pointing wherever the source's points;
4. diff: dashboards and charts are ``create`` or ``overwrite``, datasets ``create`` or
   ``keep`` (Superset keeps an existing dataset), databases ``map`` onto the target's.

The run imports per dashboard: its charts through the chart import (overwrite, so a
changed chart reaches the target), then the dashboard (overwrite), then verifies the
target has the dashboard with its charts, reporting progress to a task.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from app.caps import BundleCaps
from app.cpu import off_loop
from app.errors import SupersetNotFoundError, ToolError
from app.i18n import progress_line
from app.superset import rison
from app.superset.bundle import (
    Bundle,
    chart_bundle,
    dashboard_bundles,
    load_bundle,
    write_bundle,
)
from app.superset.remap import Remap, TargetInventory, diff_against, remap_bundle


class Reporter(Protocol):
    """Where a run reports its steps (a task's context)."""

    async def report(self, step: int, message: str, *, total: int | None = None) -> None: ...


PAGE_SIZE = 100
MAX_PAGES = 100
_INVENTORY_COLUMNS = {
    "dashboard": ["id", "uuid", "slug", "dashboard_title"],
    "chart": ["id", "uuid", "slice_name"],
    "dataset": ["id", "uuid", "table_name", "schema", "database.uuid", "database.database_name"],
}


async def list_all(client: Any, resource: str, columns: list[str]) -> list[dict[str, Any]]:
    """Every row of ``/api/v1/<resource>/`` (paged), with ``columns``."""
    rows: list[dict[str, Any]] = []
    for page in range(MAX_PAGES):
        q = rison.dumps({"columns": columns, "page": page, "page_size": PAGE_SIZE})
        data = await client.get_json(f"/api/v1/{resource}/", params={"q": q})
        batch = data.get("result") or []
        rows.extend(batch)
        if len(batch) < PAGE_SIZE or len(rows) >= int(data.get("count") or 0):
            break
    return rows


async def fetch_inventory(client: Any) -> TargetInventory:
    """What an environment holds, by uuid (reads only)."""
    datasets = await list_all(client, "dataset", _INVENTORY_COLUMNS["dataset"])
    for ds in datasets:
        db = ds.get("database") or {}
        ds["database_uuid"] = str(db.get("uuid")) if db.get("uuid") else None
        ds["database_name"] = db.get("database_name")
    return TargetInventory(
        databases=await client.list_databases(),
        datasets=datasets,
        dashboards=await list_all(client, "dashboard", _INVENTORY_COLUMNS["dashboard"]),
        charts=await list_all(client, "chart", _INVENTORY_COLUMNS["chart"]),
    )


async def resolve_dashboards(client: Any, ids: list[str]) -> list[dict[str, Any]]:
    """Each id or slug → ``{id, title, slug}`` on ``client``'s environment."""
    out = []
    for key in ids:
        try:
            dash = await client.get_dashboard(str(key).strip())
        except SupersetNotFoundError:
            raise SupersetNotFoundError(
                f"dashboard {key!r} not found in environment '{client.env.id}'", status_code=404
            ) from None
        out.append(
            {"id": int(dash["id"]), "title": dash.get("dashboard_title"), "slug": dash.get("slug")}
        )
    if not out:
        raise ToolError("no dashboards given")
    return out


async def export_bundle(
    client: Any, dashboard_ids: list[int], caps: BundleCaps | None = None
) -> Bundle:
    """The dashboards' export, read off the event loop within ``caps``."""
    return await load_bundle(await client.export_dashboards(dashboard_ids), caps)


@dataclass
class Plan:
    source_env: str
    target_env: str
    dashboards: list[dict[str, Any]]  # resolved on the source
    remap: Remap
    diff: dict[str, list[dict[str, Any]]]

    @property
    def errors(self) -> list[str]:
        return list(self.remap.problems)

    def details(self) -> dict[str, Any]:
        """The preflight's answer (JSON-able; shown in the confirmation card)."""
        counts = {kind: _count(rows) for kind, rows in self.diff.items()}
        parts = [
            f"{kind}: " + ", ".join(f"{n} to {action}" for action, n in sorted(c.items()))
            for kind, c in counts.items()
            if c
        ]
        return {
            "source_env": self.source_env,
            "target_env": self.target_env,
            **self.diff,
            "database_mapping": self.remap.databases,
            "errors": self.errors,
            "summary": f"{self.source_env} → {self.target_env}: " + "; ".join(parts),
        }


def _count(rows: list[dict[str, Any]]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in rows:
        out[r["action"]] = out.get(r["action"], 0) + 1
    return out


def _label(diff: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """Datasets that exist are kept by Superset's import; databases are mapped."""
    for row in diff.get("datasets", []):
        row["action"] = "keep" if row["action"] == "overwrite" else row["action"]
    for row in diff.get("databases", []):
        row["action"] = "map" if row["action"] == "overwrite" else row["action"]
    return diff


async def plan_bundle(
    source_env: str, bundle: Bundle, target_client: Any, mapping: dict[str, str] | None = None
) -> Plan:
    """Remap ``bundle`` onto what the target holds now and diff it (reads only)."""
    target = await fetch_inventory(target_client)
    remap, diff = await off_loop(_remapped, bundle, target, mapping)  # copies the bundle: CPU
    dashboards = [{"title": r["name"], "slug": r.get("slug")} for r in diff["dashboards"]]
    return Plan(source_env, target_client.env.id, dashboards, remap, diff)


def _remapped(
    bundle: Bundle, target: TargetInventory, mapping: dict[str, str] | None
) -> tuple[Remap, dict[str, list[dict[str, Any]]]]:
    remap = remap_bundle(bundle, target, mapping, require_database_match=True)
    return remap, _label(diff_against(remap.bundle, target))


async def plan_migration(
    source_client: Any,
    target_client: Any,
    dashboard_ids: list[str],
    mapping: dict[str, str],
    caps: BundleCaps | None = None,
) -> tuple[Plan, Bundle]:
    """Resolve, export (within ``caps``), remap and diff (reads only). Returns the plan and
    the source bundle."""
    if source_client.env.id == target_client.env.id:
        raise ToolError(f"source and target are the same environment ('{source_client.env.id}')")
    dashboards = await resolve_dashboards(source_client, dashboard_ids)
    source = await export_bundle(source_client, [d["id"] for d in dashboards], caps)
    plan = await plan_bundle(source_client.env.id, source, target_client, mapping)
    plan.dashboards = dashboards
    return plan, source


async def preflight_migration(
    source_client: Any,
    target_client: Any,
    dashboard_ids: list[str],
    database_mapping: dict[str, str] | None = None,
    caps: BundleCaps | None = None,
) -> dict[str, Any]:
    """What a migration would create or overwrite on the target, and blocking ``errors``.

    Side-effect free: only GET requests (export included)."""
    plan, _ = await plan_migration(
        source_client, target_client, list(dashboard_ids), dict(database_mapping or {}), caps
    )
    return plan.details()


async def run_migration(
    plan: Plan, target_client: Any, ctx: Reporter | None = None, *, lang: str = "en"
) -> dict[str, Any]:
    """Import the planned bundle into the target, one dashboard at a time, then verify;
    its steps are reported in ``lang`` (the turn's language)."""
    if plan.errors:
        raise ToolError("migration refused: " + "; ".join(plan.errors))
    parts = await off_loop(dashboard_bundles, plan.remap.bundle)
    total = len(parts) + 3

    async def report(step: int, message: str) -> None:
        if ctx is not None:
            await ctx.report(step, message, total=total)

    mapping = _mapping_text(plan.remap.databases) or progress_line("no_databases", lang)
    await report(2, progress_line("mapped_databases", lang, mapping=mapping))
    actions = {r["uuid"]: r["action"] for r in plan.diff["dashboards"]}
    results = []
    for i, (dash, sub) in enumerate(parts, start=1):
        title = dash.get("dashboard_title")
        await report(2 + i, progress_line("importing", lang, i=i, n=len(parts), title=title))
        if sub.objects("charts"):
            charts_zip = await off_loop(write_bundle, chart_bundle(sub))
            await target_client.request(
                "POST",
                "/api/v1/chart/import/",
                files={"formData": ("charts.zip", charts_zip, "application/zip")},
                data={"overwrite": "true"},
            )
        await target_client.import_dashboards(await off_loop(write_bundle, sub), overwrite=True)
        results.append((dash, sub))
    await report(total, progress_line("verifying", lang))
    verified = [await _verify(target_client, dash, sub, actions) for dash, sub in results]
    return {
        "source_env": plan.source_env,
        "target_env": plan.target_env,
        "dashboards": verified,
        "charts": _count(plan.diff["charts"]),
        "datasets": _count(plan.diff["datasets"]),
        "database_mapping": plan.remap.databases,
        "verified": all(d["verified"] for d in verified),
    }


async def _verify(client: Any, dash: dict[str, Any], sub: Bundle, actions: dict) -> dict[str, Any]:
    uuid = str(dash["uuid"])
    target = await client.get_dashboard(uuid)
    charts = await client.dashboard_charts(target["id"])
    expected = len(sub.objects("charts"))
    action = actions.get(uuid, "create")
    return {
        "title": target.get("dashboard_title"),
        "slug": target.get("slug"),
        "action": "overwritten" if action == "overwrite" else "created",
        "target_id": target["id"],
        "url": client.env.url + (target.get("url") or f"/superset/dashboard/{target['id']}/"),
        "charts": len(charts),
        "verified": len(charts) >= expected,
    }


def _mapping_text(rows: list[dict[str, Any]]) -> str:
    return ", ".join(f"{r['source_name']} → {r['target_name']}" for r in rows)
