"""Dashboard tools' specs: search, health, validation, docs and delete.
(Implementations: ``run.py`` beside it.)

The search is the lookup of a dashboard by its title (``finds``), offered on every page
context; health fits dashboard and migration pages, validation and docs dashboard pages.
The delete is admin-only and fits no page; the tool that brings its backup back is the
backup family's (named in its description by what it serves).
"""

from __future__ import annotations

from app.policy.toolspec import served_by
from app.tools.args import DASHBOARD_ID, RU_DASHBOARD, Ru, ToolArgs, arg, env_field
from app.tools.backup import spec as backup
from app.tools.declare import ADMINS, Family

family = Family("dashboards")
#: the tool that brings a deleted dashboard's backup back (the delete's description says it)
RESTORE = served_by(backup.family.specs, "restore")


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


search_dashboards = family.spec(
    "search_dashboards", SearchDashboardsArgs, "read", pages=("dashboard", "dataset", "migration"),
    finds="dashboard", presentation="linked_list",
    description="""Searches dashboards by title in one environment. Use to find a
    dashboard's id before acting on it, or when the user asks which dashboards exist. Empty
    query lists all dashboards; results are paged (page starts at 0). Returns a page of
    dashboards (id, title, slug, url, changed_on, owners) and the total count.""",
    en=("find dashboards", "Find dashboards about sales",
        "Search dashboards for {query!r} in {env}"),
    ru=("найти дашборды", "Найди дашборды продаж", "Найти дашборды по {query!r} в {env}"),
)  # fmt: skip

get_health_summary = family.spec(
    "get_health_summary", DashboardArgs, "read", pages=("dashboard", "migration"),
    presentation="health",
    description="""Checks one dashboard's health: runs every chart's query and inspects its
    datasets, reporting charts that fail to load, return no rows or are slow, and stale
    data. Use when the user asks whether a dashboard works. Returns an overall status (ok,
    warning or broken) with the reasons and a list of problems per chart.""",
    en=("check a dashboard's health", "Check the health of this dashboard",
        "Check the health of dashboard {dashboard_id} in {env}"),
    ru=("проверить здоровье дашборда", "Проверь здоровье этого дашборда",
        "Проверить здоровье дашборда {dashboard_id} в {env}"),
)  # fmt: skip

run_llm_validation = family.spec(
    "run_llm_validation", DashboardArgs, "read", pages=("dashboard",),
    description="""Reviews one dashboard's definition for design and data problems (missing
    titles or descriptions, charts without a saved query, unused datasets, failing
    charts), plus a model review when one is configured. Use when the user asks for a
    review or validation. Returns findings with severity, and which checks ran.""",
    en=("validate a dashboard", "Validate this dashboard for common problems",
        "Validate dashboard {dashboard_id} in {env}"),
    ru=("провалидировать дашборд", "Провалидируй этот дашборд на типичные ошибки",
        "Проверить качество дашборда {dashboard_id} в {env}"),
)  # fmt: skip

run_llm_documentation = family.spec(
    "run_llm_documentation", DashboardArgs, "read", pages=("dashboard",), presentation="text",
    description="""Drafts documentation for one dashboard: purpose, charts (type, dataset),
    datasets (columns, metrics) and filters. Use when the user asks to document or explain
    a dashboard. Returns Markdown text; it changes nothing.""",
    en=("document a dashboard", "Write documentation for this dashboard",
        "Document dashboard {dashboard_id} in {env}"),
    ru=("задокументировать дашборд", "Задокументируй этот дашборд",
        "Описать дашборд {dashboard_id} в {env}"),
)  # fmt: skip

delete_dashboard = family.spec(
    "delete_dashboard", DashboardArgs, "delete", roles=ADMINS, long_task=True,
    description=f"""Deletes one dashboard from an environment (its charts stay). Dangerous
    and not undoable without a backup, so a backup is taken first. Use only when the user
    explicitly asks to delete. Needs confirmation after a countdown. Returns the deleted
    dashboard's id and the backup (backup_id, path) {RESTORE} brings it back from.""",
    en=("delete a dashboard", "Delete this dashboard", "Delete dashboard {dashboard_id} in {env}"),
    ru=("удалить дашборд", "Удали этот дашборд", "Удалить дашборд {dashboard_id} в {env}"),
    undo="undoable",  # re-imported from the backup taken before the delete
)  # fmt: skip
