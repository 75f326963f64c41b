"""The offline planner's answers about the dashboard tools' results (the ``report`` of
their entries in :mod:`app.planner.tools.dashboards`): a search, a health check, a
validation, documentation and a delete, and their sentences in English and Russian
(``SAID``). They count and name; they do not repeat rows (the page renders the tool
result)."""

from __future__ import annotations

from typing import Any

from app.planner.labels import dashboard_label, dashboard_subject, env_in, named, way_back
from app.planner.markup import md_escape, quote, short_id
from app.planner.matches import dashboards_of
from app.planner.numbers import Noun, count_of, counted
from app.planner.phrases import sayer
from app.planner.results import Result
from app.planner.text import Lang

DASHBOARDS = Noun(("dashboard", "dashboards"), ("дашборд", "дашборда", "дашбордов"))
CHARTS = Noun(("chart", "charts"), ("график", "графика", "графиков"))

#: this family's answer sentences, (English, Russian) with the same placeholders, said by _say
SAID: dict[str, tuple[str, str]] = {
    "dashboards_none_match": (
        "No dashboards match{what}{env}. Titles may say it in other words: "
        "the list of all dashboards{env} shows them.",
        "Дашбордов по{what}{env} нет. Возможно, "
        "в названиях это сказано иначе: их покажет список всех дашбордов{env}.",
    ),
    "dashboards_none": ("There are no dashboards{env}.", "Дашбордов{env} нет."),
    "dashboards_one": ("Found one dashboard{env}: {label}.", "Нашёл один дашборд{env}: {label}."),
    "dashboards_found": ("Found {n}{matching}{env}.", "Нашёл {n}{matching}{env}."),
    "dashboards_matching": (" matching{what}", " по запросу{what}"),
    "dashboards_page": (" This page shows {size}.", " На этой странице — {size}."),
    "health_ok": (
        "{dash}{env} is healthy: {n}, all returning data.",
        "{dash}{env} в порядке: {n}, все возвращают данные.",
    ),
    "health_error": ("{count} of {charts} charts failing", "с ошибкой — {count} из {charts}"),
    "health_empty": (
        "{count} of {charts} charts returning no rows",
        "без данных — {count} из {charts}",
    ),
    "health_unchecked": (
        "{count} of {charts} charts without a saved query",
        "без сохранённого запроса — {count} из {charts}",
    ),
    "health_slow": ("{count} of {charts} charts slow", "медленных — {count} из {charts}"),
    # English counts with the noun ({stale}: "2 stale datasets"); Russian names the noun first
    "health_stale_datasets": ("{stale}", "устаревших датасетов — {stale}"),
    "health_broken": ("{dash}{env} is broken: {parts}.", "{dash}{env} сломан: {parts}."),
    "health_warnings": (
        "{dash}{env} has warnings: {parts}.",
        "{dash}{env} с предупреждениями: {parts}.",
    ),
    "health_first": (" First: {first}.", " Первая проблема: {first}."),
    # ({errors}: "1 error" in English, the number alone in Russian)
    "validation_tally": (
        "{errors}, {warnings}, {notes}",
        "ошибок — {errors}, предупреждений — {warnings}, замечаний — {notes}",
    ),
    "validation_passed": ("{dash} passed validation: {tally}.", "{dash} прошёл проверку: {tally}."),
    "validation_failed": (
        "{dash} failed validation: {tally}.",
        "{dash} не прошёл проверку: {tally}.",
    ),
    "validation_first": (" First error: {first}.", " Первая ошибка: {first}."),
    "documented": (
        "Wrote the documentation of {label}: {charts} charts and {datasets} datasets described.",
        "Подготовил документацию дашборда {label}: "
        "описаны графики ({charts}) и датасеты ({datasets}).",
    ),
    "deleted": ("Deleted {label} from {env}.", "Удалил {label} с {env}."),
    "deleted_backup_first": (
        "Backup {backup} was taken first; {way_back} to bring it back.",
        "Перед этим сделан бэкап {backup}; чтобы вернуть дашборд, {way_back}.",
    ),
}


_say = sayer(SAID)


def _subject(result: Result, args: dict[str, Any], lang: Lang) -> str:
    """The dashboard as the subject of the sentence."""
    label = dashboard_label(result.get("dashboard"), lang, args.get("dashboard_id"))
    return dashboard_subject(label, lang)


def searched(args: dict[str, Any], result: Result, lang: Lang) -> str:
    found, total = dashboards_of(result)
    env = env_in(result.get("env") or args.get("env_id"), lang)
    query = args.get("query") or ""
    what = f" {quote(query, lang)}" if query else ""
    if total == 0:  # with a query, not a dead end: titles may say it otherwise
        return _say(
            "dashboards_none_match" if query else "dashboards_none", lang, what=what, env=env
        )
    if total == 1 and found:
        return _say("dashboards_one", lang, env=env, label=dashboard_label(found[0], lang))
    matching = _say("dashboards_matching", lang, what=what) if query else ""
    head = _say(
        "dashboards_found", lang, n=count_of(total, DASHBOARDS, lang), matching=matching, env=env
    )
    page_size = result.get("page_size")
    if isinstance(page_size, int) and total > page_size:
        head += _say("dashboards_page", lang, size=page_size)
    return head


_CHART_STATES = ("error", "empty", "unchecked", "slow")


def _chart_counts(result: Result) -> dict[str, int]:
    charts = [c for c in result.items("charts") if isinstance(c, dict)]
    counts = {state: sum(c.get("status") == state for c in charts) for state in _CHART_STATES}
    counts["slow"] += sum(bool(c.get("slow")) for c in charts)
    return counts


def health(args: dict[str, Any], result: Result, lang: Lang) -> str:
    dash, verdict = _subject(result, args, lang), str(result.get("verdict") or "")
    env = env_in(result.get("env") or args.get("env_id"), lang)
    charts = result.total("charts")
    if verdict == "ok":
        return _say("health_ok", lang, dash=dash, env=env, n=count_of(charts, CHARTS, lang))
    counts, stale = _chart_counts(result), result.total("stale_datasets")
    parts = [
        _say(f"health_{state}", lang, count=counts[state], charts=charts)
        for state in _CHART_STATES
        if counts[state]
    ]
    if stale:
        stale_datasets = counted(stale, ("stale dataset", "stale datasets"), lang)
        parts.append(_say("health_stale_datasets", lang, stale=stale_datasets))
    reasons = [r for r in result.items("reasons") if isinstance(r, str)]
    if not parts and reasons:
        parts = [md_escape(reasons[0])]
    state = "health_broken" if verdict == "broken" else "health_warnings"
    text = _say(state, lang, dash=dash, env=env, parts=", ".join(parts) or verdict)
    if verdict == "broken" and reasons:
        text += _say("health_first", lang, first=md_escape(reasons[0].rstrip(".")))
    return text


def validation(args: dict[str, Any], result: Result, lang: Lang) -> str:
    counts = result.get("counts") if isinstance(result.get("counts"), dict) else {}
    e, w, i = (int(counts.get(k) or 0) for k in ("error", "warning", "info"))
    tally = _say(
        "validation_tally",
        lang,
        errors=counted(e, ("error", "errors"), lang),
        warnings=counted(w, ("warning", "warnings"), lang),
        notes=counted(i, ("note", "notes"), lang),
    )
    passed = bool(result.get("passed", e == 0))
    verdict = "validation_passed" if passed else "validation_failed"
    text = _say(verdict, lang, dash=_subject(result, args, lang), tally=tally)
    errors = [
        f for f in result.items("findings") if isinstance(f, dict) and f.get("severity") == "error"
    ]
    if errors:
        first = md_escape(f"{errors[0].get('object', '')}: {errors[0].get('issue', '')}")
        text += _say("validation_first", lang, first=first)
    return text


def documented(args: dict[str, Any], result: Result, lang: Lang) -> str:
    label = dashboard_label(result.get("dashboard"), lang, args.get("dashboard_id"))
    lines = str(result.get("markdown") or "").splitlines()
    charts = next((ln for ln in lines if ln.startswith("## Charts (")), "")
    datasets = next((ln for ln in lines if ln.startswith("## Datasets (")), "")
    return _say(
        "documented",
        lang,
        label=label.removeprefix("дашборд "),  # the sentence says «дашборда» itself
        charts=charts[len("## Charts (") : -1] if charts else "?",
        datasets=datasets[len("## Datasets (") : -1] if datasets else "?",
    )


def deleted(args: dict[str, Any], result: Result, lang: Lang) -> str:
    label = dashboard_label(result.get("deleted"), lang, args.get("dashboard_id"))
    text = _say("deleted", lang, label=label, env=named(result, args, "env_id"))
    if backup := result.get("backup_id"):
        b, back = md_escape(short_id(backup)), way_back(backup, lang)
        text += " " + _say("deleted_backup_first", lang, backup=b, way_back=back)
    return text
