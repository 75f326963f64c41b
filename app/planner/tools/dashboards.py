"""The offline planner's knowledge of the dashboard tools: search (the lookup of a
dashboard named by its title), health, validation, documentation, deletion. Their answers
(and their sentences) are in :mod:`app.planner.tools.dashboard_answers`."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from app.planner.knowledge import LookupRole, Need, ToolKnowledge, row
from app.planner.labels import dashboard_label
from app.planner.matches import dashboard_named
from app.planner.readers import one_dashboard, search_words
from app.planner.request import Request
from app.planner.slots import CallText, either, on_dashboards
from app.planner.tools import dashboard_answers as answer

#: a tool about one dashboard: named (by id, slug, or a title looked up first), else the page's
_about_one_dashboard = partial(
    ToolKnowledge,
    read_args=one_dashboard,
    required=("dashboard_id",),
    need=Need("dashboard", "dashboard_id"),
)


# --- the lookup: a dashboard named by its title ---------------------------------------------
def _title(req: Request, args: dict[str, Any], need: Need) -> str | None:
    """A dashboard named by its title (ids and slugs go to the tool as they are)."""
    title = req.dashboard_title(required=need.required)
    return None if not title or args.get(need.slot) else title


LOOKUP = LookupRole(
    kind="dashboard",
    ref=_title,
    args=lambda title, env: {"query": title, "env_id": env} if env else {"query": title},
    resolve=dashboard_named,
    ident=lambda item: str(item.get("id")),
    label=dashboard_label,
    in_selected_env=True,
)

# --- saying a call ------------------------------------------------------------------------
_SEARCH = CallText(
    doing=("listing the dashboards{env}", "показываю дашборды{env}"),
    ru_noun="поиск дашбордов",
    request=("list all dashboards{env}", "покажи все дашборды{env}"),
)
_SEARCH_FOR = replace(
    _SEARCH,  # the same noun
    doing=('searching dashboards for "{query}"{env}', "ищу дашборды «{query}»{env}"),
    request=('find dashboards "{query}"{env}', 'найди дашборды "{query}"{env}'),
)


# --- the tools ----------------------------------------------------------------------------
TOOLS = (
    ToolKnowledge(
        "search_dashboards",
        rows=(
            row(
                260,
                [
                    r"\b(?:find|search|look\s+(?:for|up))\b",
                    r"найд\w*|найти|поищ\w*|\bищи\b|поиск\w*",
                    # "list all dashboards in dev": a request of its own, never an answer
                    r"\b(?:list|show)\s+(?:me\s+)?all\s+(?:the\s+)?dashboards\b",
                    r"(?:покажи|выведи|перечисли)\s+(?:мне\s+)?все\s+дашборды",
                ],
                weak=[
                    r"\bdashboards?\b|\b(?:list|show|which)\b",
                    r"дашборд\w*|покажи|какие|список",
                ],
            ),
        ),
        read_args=lambda req: {"query": search_words(req), "env_id": req.env_id()},
        phrase=either("query", _SEARCH_FOR, _SEARCH, slot="query"),
        report=answer.searched,
        lookup=LOOKUP,
    ),
    _about_one_dashboard(
        "get_health_summary",
        rows=(
            row(
                220,
                [
                    r"\bhealth\w*|\bbroken\b|how\s+is\b.{0,40}\bdoing|\bfail\w*|\btest\b",
                    r"what'?s\s+wrong|\b(?:does\s*n[o']t|is\s*n[o']t|not)\s+(?:work|load)\w*",
                    r"\bis\b.{0,30}\b(?:ok|okay|fine|alright)\b",
                    r"здоров\w*|\bсломан\w*|работает\s+ли|вс[её]\s+ли\s+в\s+порядке|протестир\w*",
                    r"не\s+(?:работает|грузится|открывается|загружается)|что\s+не\s+так",
                    r"как\s+(?:там\s+|себя\s+чувствует\s+|поживает\s+)(?:\w+\s+)?дашборд",
                ],
                weak=[r"\b(?:check|status|state|verify|ok)\b", r"провер\w*|статус\w*|состояни\w*"],
            ),
        ),
        phrase=on_dashboards(
            ("checking the health of", "проверяю здоровье"),
            "проверку здоровья",
            ("check the health of", "проверь здоровье"),
            ru_object="gen",
        ),
        report=answer.health,
    ),
    _about_one_dashboard(
        "run_llm_validation",
        rows=(
            # quality, analysis and a dashboard's audit are validation, not health
            row(
                210,
                [
                    r"\bquality\b|\banaly[sz]\w*"
                    r"|\baudit\w*\s+(?:of\s+)?(?:this\s+|the\s+|my\s+)?dashboard",
                    r"качеств\w*|проанализир\w*|анализ\w*|аудит\w*\s+(?:этого\s+)?дашборд\w*",
                ],
            ),
            row(
                230,
                [
                    r"\bvalidat\w*|\blint\w*",
                    r"\bcheck\b.{0,30}\bfor\s+(?:errors|issues|problems|mistakes)",
                    r"\b(?:find|look\s+for|any)\s+(?:\w+\s+)?(?:problems|issues|errors)",
                    r"валид\w*|провалид\w*|на\s+(?:ошибк\w*|проблем\w*)|\bлинт\w*",
                    r"(?:найди|поищи|есть\s+ли)\s+(?:\w+\s+)?(?:ошибк\w*|проблем\w*)",
                ],
                weak=[r"\b(?:review|verify|check)\b", r"провер\w*|ревью"],
            ),
        ),
        phrase=CallText(
            doing=("validating {d}{env}", "проверяю качество {gen}{env}"),
            ru_noun="проверку качества {gen}{env}",
            request=("validate {d}{env}", "провалидируй {acc}{env}"),
        ),
        report=answer.validation,
    ),
    _about_one_dashboard(
        "run_llm_documentation",
        rows=(
            row(
                200,
                [
                    r"\bdocument\w*|\bdocs\b|\bwrite\s+(?:a\s+|the\s+)?description",
                    r"\bdescribe\s+(?:this\s+|the\s+|my\s+)?dashboard",
                    r"документ\w*|задокументир\w*|описани\w*"
                    r"|\bexplain\s+(?:this\s+|the\s+)?dashboard",
                    r"опиши\w*\s+(?:этот\s+|эту\s+|мой\s+)?дашборд\w*",
                ],
            ),
        ),
        phrase=on_dashboards(
            ("documenting", "документирую"), "документирование", ("document", "задокументируй")
        ),
        report=answer.documented,
    ),
    _about_one_dashboard(
        "delete_dashboard",
        rows=(
            row(
                160,
                [
                    r"\b(?:delete|remove|drop|destroy|erase|get\s+rid\s+of)\b",
                    r"удал\w*|снеси\w*|убери\w*",
                ],
            ),
        ),
        phrase=on_dashboards(("deleting", "удаляю"), "удаление", ("delete", "удали")),
        report=answer.deleted,
    ),
)
