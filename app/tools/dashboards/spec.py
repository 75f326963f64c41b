"""Dashboard tools' specs: search, health, validation, docs and delete.
(Implementations: ``run.py`` beside it.)

The search is the lookup of a dashboard by its title (``finds``), offered on every page
context; health fits dashboard and migration pages, validation and docs dashboard pages.
The delete is admin-only and fits no page; the tool that brings its backup back is the
backup family's (named in its description by what it serves).
"""

from __future__ import annotations

from app.policy.toolspec import CardLine, Phrase, served_by
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


def _for_dashboard(en: str, ru: str) -> CardLine:
    return CardLine(en=en + " dashboard {dashboard_id} in {env}", ru=ru + " {dashboard_id} в {env}")


search_dashboards = family.spec(
    "search_dashboards",
    args=SearchDashboardsArgs,
    risk="read",
    pages=("dashboard", "dataset", "migration"),
    finds="dashboard",
    description="""Searches dashboards by title in one environment. Use to find a
    dashboard's id before acting on it, or when the user asks which dashboards exist. Empty
    query lists all dashboards; results are paged (page starts at 0). Returns a page of
    dashboards (id, title, slug, url, changed_on, owners) and the total count.""",
    can=Phrase("find dashboards", "найти дашборды"),
    example=Phrase("Find dashboards about sales", "Найди дашборды продаж"),
    card=CardLine(
        en="Search dashboards for {query!r} in {env}", ru="Найти дашборды по {query!r} в {env}"
    ),
    presentation="linked_list",
)

get_health_summary = family.spec(
    "get_health_summary",
    args=DashboardArgs,
    risk="read",
    pages=("dashboard", "migration"),
    description="""Checks one dashboard's health: runs every chart's query and inspects its
    datasets, reporting charts that fail to load, return no rows or are slow, and stale
    data. Use when the user asks whether a dashboard works. Returns an overall status (ok,
    warning or broken) with the reasons and a list of problems per chart.""",
    can=Phrase("check a dashboard's health", "проверить здоровье дашборда"),
    example=Phrase("Check the health of this dashboard", "Проверь здоровье этого дашборда"),
    card=_for_dashboard("Check the health of", "Проверить здоровье дашборда"),
    presentation="health",
)

run_llm_validation = family.spec(
    "run_llm_validation",
    args=DashboardArgs,
    risk="read",
    pages=("dashboard",),
    description="""Reviews one dashboard's definition for design and data problems (missing
    titles or descriptions, charts without a saved query, unused datasets, failing
    charts), plus a model review when one is configured. Use when the user asks for a
    review or validation. Returns findings with severity, and which checks ran.""",
    can=Phrase("validate a dashboard", "провалидировать дашборд"),
    example=Phrase(
        "Validate this dashboard for common problems",
        "Провалидируй этот дашборд на типичные ошибки",
    ),
    card=_for_dashboard("Validate", "Проверить качество дашборда"),
)

run_llm_documentation = family.spec(
    "run_llm_documentation",
    args=DashboardArgs,
    risk="read",
    pages=("dashboard",),
    description="""Drafts documentation for one dashboard: purpose, charts (type, dataset),
    datasets (columns, metrics) and filters. Use when the user asks to document or explain
    a dashboard. Returns Markdown text; it changes nothing.""",
    can=Phrase("document a dashboard", "задокументировать дашборд"),
    example=Phrase("Write documentation for this dashboard", "Задокументируй этот дашборд"),
    card=_for_dashboard("Document", "Описать дашборд"),
    presentation="text",
)

delete_dashboard = family.spec(
    "delete_dashboard",
    args=DashboardArgs,
    risk="delete",
    roles=ADMINS,
    description=f"""Deletes one dashboard from an environment (its charts stay). Dangerous
    and not undoable without a backup, so a backup is taken first. Use only when the user
    explicitly asks to delete. Needs confirmation after a countdown. Returns the deleted
    dashboard's id and the backup (backup_id, path) {RESTORE} brings it back from.""",
    can=Phrase("delete a dashboard", "удалить дашборд"),
    example=Phrase("Delete this dashboard", "Удали этот дашборд"),
    card=CardLine(
        en="Delete dashboard {dashboard_id} in {env}", ru="Удалить дашборд {dashboard_id} в {env}"
    ),
    long_task=True,
    undo="undoable",  # re-imported from the backup taken before the delete
)
