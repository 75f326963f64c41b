"""Dashboard tools: search, health, validation (rules + optional model review), docs,
and delete (which takes a backup first, with the backup family's code)."""

from __future__ import annotations

from typing import Any

from app.agent.tools.backup import take_backup
from app.agent.tools.base import (
    DASHBOARD_ID,
    RU_DASHBOARD,
    Ru,
    ToolArgs,
    ToolDeps,
    arg,
    env_field,
)
from app.agent.tools.declare import Family
from app.agent.tools.review import model_review
from app.i18n import t
from app.policy import CardLine, Phrase
from app.superset.health import check_charts, load_bundle, stale_datasets, verdict
from app.superset.migration import resolve_dashboards
from app.superset.quality import documentation_markdown, rule_findings
from app.tasks.worker import TaskContext
from app.text import clean_text

family = Family("dashboards")


class SearchDashboardsArgs(ToolArgs):
    query: str = arg(
        "Words to match in dashboard titles; empty lists all dashboards.",
        Ru("Запрос", "Слова из названий дашбордов; пусто — все дашборды."),
        default="",
    )
    env_id: str | None = env_field()
    page: int = arg(
        "Zero-based page number.", Ru("Страница", "Номер страницы, с нуля."), default=0, ge=0
    )
    page_size: int = arg(
        "Dashboards per page (1-100).",
        Ru("На странице", "Сколько дашбордов на странице (1–100)."),
        default=25,
        ge=1,
        le=100,
    )


class DashboardArgs(ToolArgs):
    dashboard_id: str = arg(DASHBOARD_ID, RU_DASHBOARD, min_length=1)
    env_id: str | None = env_field()


def _for_dashboard(en: str, ru: str) -> CardLine:
    return CardLine(en=en + " dashboard {dashboard_id} in {env}", ru=ru + " {dashboard_id} в {env}")


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


@family.tool(
    risk="read",
    can=Phrase("find dashboards", "найти дашборды"),
    example=Phrase("Find dashboards about sales", "Найди дашборды продаж"),
    card=CardLine(
        en="Search dashboards for {query!r} in {env}", ru="Найти дашборды по {query!r} в {env}"
    ),
    presentation="linked_list",
    choices=dashboard_choices,
)
async def search_dashboards(args: SearchDashboardsArgs, deps: ToolDeps) -> dict[str, Any]:
    """Searches dashboards by title in one environment. Use to find a dashboard's id before
    acting on it, or when the user asks which dashboards exist. Empty query lists all
    dashboards; results are paged (page starts at 0). Returns a page of dashboards (id,
    title, slug, url, changed_on, owners) and the total count."""
    env, client = deps.env_client(args.env_id)
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
                "owners": [
                    " ".join(filter(None, (o.get("first_name"), o.get("last_name"))))
                    for o in d.get("owners") or []
                ],
            }
            for d in data.get("result", [])
        ],
    }


@family.tool(
    risk="read",
    can=Phrase("check a dashboard's health", "проверить здоровье дашборда"),
    example=Phrase("Check the health of this dashboard", "Проверь здоровье этого дашборда"),
    card=_for_dashboard("Check the health of", "Проверить здоровье дашборда"),
    presentation="health",
)
async def get_health_summary(args: DashboardArgs, deps: ToolDeps) -> dict[str, Any]:
    """Checks one dashboard's health: runs every chart's query and inspects its datasets,
    reporting charts that fail to load, return no rows or are slow, and stale data. Use
    when the user asks whether a dashboard works. Returns an overall status (ok, warning
    or broken) with the reasons and a list of problems per chart."""
    env, client = deps.env_client(args.env_id)
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


@family.tool(
    risk="read",
    can=Phrase("validate a dashboard", "провалидировать дашборд"),
    example=Phrase(
        "Validate this dashboard for common problems",
        "Провалидируй этот дашборд на типичные ошибки",
    ),
    card=_for_dashboard("Validate", "Проверить качество дашборда"),
)
async def run_llm_validation(args: DashboardArgs, deps: ToolDeps) -> dict[str, Any]:
    """Reviews one dashboard's definition for design and data problems (missing titles or
    descriptions, charts without a saved query, unused datasets, failing charts), plus a
    model review when one is configured. Use when the user asks for a review or
    validation. Returns findings with severity, and which checks ran."""
    env, client = deps.env_client(args.env_id)
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


@family.tool(
    risk="read",
    can=Phrase("document a dashboard", "задокументировать дашборд"),
    example=Phrase("Write documentation for this dashboard", "Задокументируй этот дашборд"),
    card=_for_dashboard("Document", "Описать дашборд"),
    presentation="text",
)
async def run_llm_documentation(args: DashboardArgs, deps: ToolDeps) -> dict[str, Any]:
    """Drafts documentation for one dashboard: purpose, charts (type, dataset), datasets
    (columns, metrics) and filters. Use when the user asks to document or explain a
    dashboard. Returns Markdown text; it changes nothing."""
    env, client = deps.env_client(args.env_id)
    bundle = await load_bundle(client, args.dashboard_id)
    datasets = [await client.get_dataset(ds["id"]) for ds in bundle.datasets]
    md = documentation_markdown(env.id, bundle, datasets)
    return {
        "env": env.id,
        "dashboard": {"id": bundle.id, "title": bundle.title},
        "markdown": md,
    }


@family.tool(
    risk="delete",
    can=Phrase("delete a dashboard", "удалить дашборд"),
    example=Phrase("Delete this dashboard", "Удали этот дашборд"),
    card=CardLine(
        en="Delete dashboard {dashboard_id} in {env}", ru="Удалить дашборд {dashboard_id} в {env}"
    ),
    long_task=True,
)
async def delete_dashboard(args: DashboardArgs, deps: ToolDeps) -> dict[str, Any]:
    """Deletes one dashboard from an environment (its charts stay). Dangerous and not
    undoable without a backup, so a backup is taken first. Use only when the user
    explicitly asks to delete. Needs confirmation after a countdown. Returns the deleted
    dashboard's id and the backup (backup_id, path) restore_backup brings it back from."""
    env, client = deps.env_client(args.env_id)

    async def job(ctx: TaskContext) -> dict[str, Any]:
        dash = (await resolve_dashboards(client, [args.dashboard_id]))[0]
        backup = await take_backup(deps, env.id, [str(dash["id"])], ctx, step=1)
        await ctx.report(3, f"deleting dashboard {dash['id']} ({dash['title']})")
        await client.delete_dashboard(dash["id"])
        return {
            "task_id": ctx.task_id,
            "deleted": {"id": dash["id"], "title": dash["title"], "slug": dash["slug"]},
            "env_id": env.id,
            "backup_id": backup["backup_id"],
            "message": f"Deleted '{dash['title']}' from {env.id}; backup {backup['backup_id']} "
            "was taken first (restore_backup brings it back).",
        }

    return await deps.run_task("delete", job, env_id=env.id, total_steps=3)


TOOLS = family.tools
