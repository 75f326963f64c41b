"""Dashboard tools' specs: search, health, validation, docs and delete.
(Implementations: ``app/agent/tools/dashboards.py``.)"""

from __future__ import annotations

from app.policy.catalog import CardLine, Phrase
from app.policy.tools.base import DASHBOARD_ID, RU_DASHBOARD, Ru, ToolArgs, arg, env_field
from app.policy.tools.declare import SpecFamily

family = SpecFamily("dashboards")


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
    description="""Deletes one dashboard from an environment (its charts stay). Dangerous
    and not undoable without a backup, so a backup is taken first. Use only when the user
    explicitly asks to delete. Needs confirmation after a countdown. Returns the deleted
    dashboard's id and the backup (backup_id, path) restore_backup brings it back from.""",
    can=Phrase("delete a dashboard", "удалить дашборд"),
    example=Phrase("Delete this dashboard", "Удали этот дашборд"),
    card=CardLine(
        en="Delete dashboard {dashboard_id} in {env}", ru="Удалить дашборд {dashboard_id} в {env}"
    ),
    long_task=True,
    undo="undoable",  # re-imported from the backup taken before the delete
)

SPECS = family.specs
