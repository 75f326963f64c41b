"""Dashboard tools: search, health, validation (rules + optional model review), docs,
and delete (which takes a backup first, with the backup family's code; its undo imports
that backup again, unless the dashboard is back or its charts changed since).
(Their specs: ``spec.py``; their views: ``view.py``.)"""

from __future__ import annotations

from typing import Any

from app.i18n import t
from app.superset.fingerprint import fingerprint
from app.superset.health import check_charts, load_bundle, stale_datasets, verdict
from app.superset.migration import resolve_dashboards
from app.superset.quality import documentation_markdown, rule_findings
from app.tasks.worker import TaskContext
from app.text import clean_text
from app.tools import import_undo
from app.tools.backup.run import take_backup
from app.tools.backup.store import backup_bundle, reimport
from app.tools.dashboards import spec as specs
from app.tools.dashboards import view
from app.tools.dashboards.review import model_review
from app.tools.dashboards.spec import DashboardArgs, SearchDashboardsArgs
from app.tools.kit import Implementations, ToolDeps
from app.tools.undo_plan import Inverse, UndoPlan, UndoView

runs = Implementations(specs.family)


def dashboard_choices(
    args: SearchDashboardsArgs, result: dict[str, Any], lang: str
) -> list[tuple[str, str]]:
    """A named search's candidates (several, or none: then every dashboard of the
    environment) as the requests that pick them."""
    if not args.query.strip():
        return []
    env = result.get("env")
    found = result.get("dashboards") or []
    if not found and env:
        return [(t("all_dashboards", lang, env=env), t("list_all_dashboards", lang, env=env))]
    if len(found) < 2:
        return []
    key = "choose_dashboard" if env else "choose_dashboard_anywhere"
    return [(_label(d, lang), t(key, lang, id=d["id"], env=env)) for d in found]


def _label(dashboard: dict[str, Any], lang: str) -> str:
    """A button's plain text: the title in the language's quotes and the id."""
    title = " ".join(clean_text(str(dashboard.get("title") or "")).split())[:80]
    quoted = f"«{title}»" if lang == "ru" else f"“{title}”"
    return f"{quoted} (#{dashboard['id']})"


@runs.implements(specs.search_dashboards, choices=dashboard_choices, view=view.search_dashboards)
async def search_dashboards(args: SearchDashboardsArgs, deps: ToolDeps) -> dict[str, Any]:
    """One page of ``/api/v1/dashboard/`` filtered by title, with absolute URLs. A page past
    the last one (a caller counting pages from 1 asks for page 1 of one result) shows the
    last page instead, and says which was asked (``page_asked``): "nothing found" would
    be wrong when something was."""
    env, client = deps.env_client()
    query, page = args.query or "", args.page
    data = await client.list_dashboards(query, page, args.page_size)
    count = int(data.get("count") or 0)
    if page > 0 and count and not data.get("result"):
        page = (count - 1) // args.page_size
        data = await client.list_dashboards(query, page, args.page_size)
    moved = {"page_asked": args.page} if page != args.page else {}
    return {
        "env": env.id,
        "count": data.get("count", 0),
        "page": page,
        **moved,
        "page_size": args.page_size,
        "dashboards": [
            {
                "id": d["id"],
                "title": d.get("dashboard_title"),
                "slug": d.get("slug"),
                "url": env.url + (d.get("url") or f"/superset/dashboard/{d['id']}/"),
                "published": d.get("published"),
                "changed_on": d.get("changed_on_utc"),
                "owners": [
                    " ".join(filter(None, (o.get("first_name"), o.get("last_name"))))
                    for o in d.get("owners") or []
                ],
            }
            for d in data.get("result", [])
        ],
    }


@runs.implements(specs.get_health_summary, view=view.health)
async def get_health_summary(args: DashboardArgs, deps: ToolDeps) -> dict[str, Any]:
    """Loads the dashboard's bundle, runs every chart's query and checks its datasets'
    freshness (:mod:`app.superset.health`)."""
    env, client = deps.env_client()
    bundle = await load_bundle(client, args.dashboard_id)
    checks = await check_charts(client, bundle.charts)
    stale = await stale_datasets(client, bundle.datasets)
    report = verdict(checks, stale, deps.lang)
    return {
        "env": env.id,
        "dashboard": {"id": bundle.id, "title": bundle.title},
        "verdict": report.verdict,
        "reasons": report.reasons,
        "charts": [c.as_dict() for c in report.charts],
        "stale_datasets": report.stale_datasets,
    }


@runs.implements(specs.run_llm_validation, view=view.validation)
async def run_llm_validation(args: DashboardArgs, deps: ToolDeps) -> dict[str, Any]:
    """The rule checks (:mod:`app.superset.quality`), plus the configured model's review
    (:mod:`app.tools.dashboards.review`) when there is one."""
    env, client = deps.env_client()
    bundle = await load_bundle(client, args.dashboard_id)
    checks = await check_charts(client, bundle.charts)
    findings = rule_findings(bundle, checks, deps.lang)
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


@runs.implements(specs.run_llm_documentation, view=view.documentation)
async def run_llm_documentation(args: DashboardArgs, deps: ToolDeps) -> dict[str, Any]:
    """Markdown built from the dashboard's bundle and its datasets (no model call)."""
    env, client = deps.env_client()
    bundle = await load_bundle(client, args.dashboard_id)
    datasets = [await client.get_dataset(ds["id"]) for ds in bundle.datasets]
    md = documentation_markdown(env.id, bundle, datasets, deps.lang)
    return {
        "env": env.id,
        "dashboard": {"id": bundle.id, "title": bundle.title},
        "markdown": md,
    }


# ---- the undo of a delete: the backup imported again ------------------------------------
REIMPORT = "reimport"


async def _after_delete(deps: ToolDeps, client: Any, env_id: str, backup_id: str) -> UndoPlan:
    """The delete's undo: its backup, and what the deleted dashboard's charts (which a
    delete leaves) look like now; the dashboard itself is absent."""
    _, bundle = await backup_bundle(deps, backup_id)
    rows: dict[str, list[dict[str, Any]]] = {}
    for folder, name_key in (("dashboards", "dashboard_title"), ("charts", "slice_name")):
        rows[folder] = [
            {"name": doc.get(name_key) or doc.get("uuid"), "uuid": str(doc.get("uuid")),
             "action": "restore"}
            for _, doc in bundle.objects(folder)
        ]  # fmt: skip
    wanted = {"dashboard": [r["uuid"] for r in rows["dashboards"]],
              "chart": [r["uuid"] for r in rows["charts"]]}  # fmt: skip
    now = await fingerprint(client, wanted, deps.settings.bundle_caps())
    summary = {"target_env": env_id, **rows}
    return UndoPlan(REIMPORT, {"backup_id": backup_id}, now, summary, env_id)


async def _undo_delete(change: UndoView, deps: ToolDeps) -> dict[str, Any]:
    client = deps.client(change.env_id)
    done = await reimport(deps, str(change.inverse["backup_id"]), client)
    titles = ", ".join(str(d.get("title")) for d in done.get("dashboards") or [])
    return {"env_id": change.env_id, "restored_dashboards": titles,
            "verified": done.get("verified")}  # fmt: skip


#: drift as for an import: the dashboard re-created since, or one of its charts changed
UNDO_DELETE = Inverse(REIMPORT, drift=import_undo.drift, run=_undo_delete)


@runs.implements(specs.delete_dashboard, view=view.delete_dashboard, inverse=UNDO_DELETE)
async def delete_dashboard(args: DashboardArgs, deps: ToolDeps) -> dict[str, Any]:
    """A task of three steps: back the dashboard up (:func:`take_backup`), then delete it."""
    env, client = deps.env_client()

    async def job(ctx: TaskContext) -> dict[str, Any]:
        dash = (await resolve_dashboards(client, [args.dashboard_id]))[0]
        backup = await take_backup(deps, env.id, [str(dash["id"])], ctx, step=1)
        await ctx.report(3, deps.say("deleting", id=dash["id"], title=dash["title"]))
        await client.remove_dashboard(dash["id"])
        deps.undo = await _after_delete(deps, client, env.id, backup["backup_id"])
        return {
            "task_id": ctx.task_id,
            "deleted": {"id": dash["id"], "title": dash["title"], "slug": dash["slug"]},
            "env_id": env.id,
            "backup_id": backup["backup_id"],
            "message": f"Deleted '{dash['title']}' from {env.id}; backup {backup['backup_id']} "
            f"was taken first ({specs.RESTORE} brings it back).",
        }

    return await deps.run_task("delete", job, env_id=env.id, total_steps=3)
