"""The offline planner's knowledge of the dashboard tools: search (the lookup of a
dashboard named by its title), health, validation, documentation, deletion. The answers
count and name; they do not repeat rows (the page renders the tool result)."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from typing import Any

from app.planner.knowledge import LookupRole, Need, ToolKnowledge, row
from app.planner.labels import dashboard_label, dashboard_subject, env_in, named, way_back
from app.planner.markup import md_escape, quote, short_id
from app.planner.matches import dashboard_named, dashboards_of
from app.planner.numbers import Noun, count_of, counted
from app.planner.phrases import say
from app.planner.readers import one_dashboard, search_words
from app.planner.request import Request
from app.planner.results import Result
from app.planner.slots import CallText, either, on_dashboards
from app.planner.text import Lang

DASHBOARDS = Noun(("dashboard", "dashboards"), ("дашборд", "дашборда", "дашбордов"))
CHARTS = Noun(("chart", "charts"), ("график", "графика", "графиков"))
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


# --- answers ------------------------------------------------------------------------------
def _subject(result: Result, args: dict[str, Any], lang: Lang) -> str:
    """The dashboard as the subject of the sentence."""
    label = dashboard_label(result.get("dashboard"), lang, args.get("dashboard_id"))
    return dashboard_subject(label, lang)


def _search(args: dict[str, Any], result: Result, lang: Lang) -> str:
    found, total = dashboards_of(result)
    env = env_in(result.get("env") or args.get("env_id"), lang)
    query = args.get("query") or ""
    what = f" {quote(query, lang)}" if query else ""
    if total == 0:  # with a query, not a dead end: titles may say it otherwise
        return say(
            "dashboards_none_match" if query else "dashboards_none", lang, what=what, env=env
        )
    if total == 1 and found:
        return say("dashboards_one", lang, env=env, label=dashboard_label(found[0], lang))
    matching = say("dashboards_matching", lang, what=what) if query else ""
    head = say(
        "dashboards_found", lang, n=count_of(total, DASHBOARDS, lang), matching=matching, env=env
    )
    page_size = result.get("page_size")
    if isinstance(page_size, int) and total > page_size:
        head += say("dashboards_page", lang, size=page_size)
    return head


_CHART_STATES = ("error", "empty", "unchecked", "slow")


def _chart_counts(result: Result) -> dict[str, int]:
    charts = [c for c in result.items("charts") if isinstance(c, dict)]
    counts = {state: sum(c.get("status") == state for c in charts) for state in _CHART_STATES}
    counts["slow"] += sum(bool(c.get("slow")) for c in charts)
    return counts


def _health(args: dict[str, Any], result: Result, lang: Lang) -> str:
    dash, verdict = _subject(result, args, lang), str(result.get("verdict") or "")
    env = env_in(result.get("env") or args.get("env_id"), lang)
    charts = result.total("charts")
    if verdict == "ok":
        return say("health_ok", lang, dash=dash, env=env, n=count_of(charts, CHARTS, lang))
    counts, stale = _chart_counts(result), result.total("stale_datasets")
    parts = [
        say(f"health_{state}", lang, count=counts[state], charts=charts)
        for state in _CHART_STATES
        if counts[state]
    ]
    if stale:
        stale_datasets = counted(stale, ("stale dataset", "stale datasets"), lang)
        parts.append(say("health_stale_datasets", lang, stale=stale_datasets))
    reasons = [r for r in result.items("reasons") if isinstance(r, str)]
    if not parts and reasons:
        parts = [md_escape(reasons[0])]
    state = "health_broken" if verdict == "broken" else "health_warnings"
    text = say(state, lang, dash=dash, env=env, parts=", ".join(parts) or verdict)
    if verdict == "broken" and reasons:
        text += say("health_first", lang, first=md_escape(reasons[0].rstrip(".")))
    return text


def _validation(args: dict[str, Any], result: Result, lang: Lang) -> str:
    counts = result.get("counts") if isinstance(result.get("counts"), dict) else {}
    e, w, i = (int(counts.get(k) or 0) for k in ("error", "warning", "info"))
    tally = say(
        "validation_tally",
        lang,
        errors=counted(e, ("error", "errors"), lang),
        warnings=counted(w, ("warning", "warnings"), lang),
        notes=counted(i, ("note", "notes"), lang),
    )
    passed = bool(result.get("passed", e == 0))
    verdict = "validation_passed" if passed else "validation_failed"
    text = say(verdict, lang, dash=_subject(result, args, lang), tally=tally)
    errors = [
        f for f in result.items("findings") if isinstance(f, dict) and f.get("severity") == "error"
    ]
    if errors:
        first = md_escape(f"{errors[0].get('object', '')}: {errors[0].get('issue', '')}")
        text += say("validation_first", lang, first=first)
    return text


def _documentation(args: dict[str, Any], result: Result, lang: Lang) -> str:
    label = dashboard_label(result.get("dashboard"), lang, args.get("dashboard_id"))
    lines = str(result.get("markdown") or "").splitlines()
    charts = next((ln for ln in lines if ln.startswith("## Charts (")), "")
    datasets = next((ln for ln in lines if ln.startswith("## Datasets (")), "")
    return say(
        "documented",
        lang,
        label=label.removeprefix("дашборд "),  # the sentence says «дашборда» itself
        charts=charts[len("## Charts (") : -1] if charts else "?",
        datasets=datasets[len("## Datasets (") : -1] if datasets else "?",
    )


def _deleted(args: dict[str, Any], result: Result, lang: Lang) -> str:
    label = dashboard_label(result.get("deleted"), lang, args.get("dashboard_id"))
    text = say("deleted", lang, label=label, env=named(result, args, "env_id"))
    if backup := result.get("backup_id"):
        b, back = md_escape(short_id(backup)), way_back(backup, lang)
        text += " " + say("deleted_backup_first", lang, backup=b, way_back=back)
    return text


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
        report=_search,
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
        report=_health,
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
        report=_validation,
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
        report=_documentation,
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
        report=_deleted,
    ),
)
