"""One- or two-sentence answers for the dashboard tools: search, health, validation,
documentation, deploy and migration. Lists and tables are the page's job (it renders the
tool result); these sentences count and name, they do not repeat rows."""

from __future__ import annotations

from typing import Any

from app.planner.labels import dashboard_label, dashboard_subject, env_in, named
from app.planner.markup import md_escape, quote
from app.planner.numbers import plural
from app.planner.phrases import tr
from app.planner.results import Result
from app.planner.steps import dashboards_of
from app.planner.text import Lang

DASHBOARDS = ("dashboard", "dashboards")
DASHBOARDS_RU = ("дашборд", "дашборда", "дашбордов")
CHARTS = ("chart", "charts")
CHARTS_RU = ("график", "графика", "графиков")


def _dash(result: Result, args: dict[str, Any], lang: Lang) -> str:
    """The dashboard as the subject of the sentence."""
    label = dashboard_label(result.get("dashboard"), lang, args.get("dashboard_id"))
    return dashboard_subject(label, lang)


def search(args: dict[str, Any], result: Result, lang: Lang) -> str:
    found, total = dashboards_of(result)
    env_id = result.get("env") or args.get("env_id")
    env = env_in(env_id, lang)
    query = args.get("query") or ""
    what = f" {quote(query, lang)}" if query else ""
    if total == 0:
        if query:  # not a dead end: titles may be worded (or in a language) otherwise
            return tr(
                lang,
                f"No dashboards match{what}{env}. Titles may say it in other words: "
                f"the list of all dashboards{env} shows them.",
                f"Дашбордов по{what}{env} нет. Возможно, в названиях это сказано иначе: "
                f"их покажет список всех дашбордов{env}.",
            )
        return tr(lang, f"There are no dashboards{env}.", f"Дашбордов{env} нет.")
    if total == 1 and found:
        label = dashboard_label(found[0], lang)
        return tr(lang, f"Found one dashboard{env}: {label}.", f"Нашёл один дашборд{env}: {label}.")
    n = plural(total, DASHBOARDS_RU if lang == "ru" else DASHBOARDS, lang)
    head = tr(
        lang,
        f"Found {n}" + (f" matching{what}" if query else "") + f"{env}.",
        f"Нашёл {n}" + (f" по запросу{what}" if query else "") + f"{env}.",
    )
    page_size = result.get("page_size")
    if isinstance(page_size, int) and total > page_size:
        head += tr(lang, f" This page shows {page_size}.", f" На этой странице — {page_size}.")
    return head


def _chart_counts(result: Result) -> dict[str, int]:
    counts = {"error": 0, "empty": 0, "unchecked": 0, "slow": 0}
    for chart in result.items("charts"):
        if isinstance(chart, dict):
            status = chart.get("status")
            if status in counts:
                counts[status] += 1
            counts["slow"] += bool(chart.get("slow"))
    return counts


def health(args: dict[str, Any], result: Result, lang: Lang) -> str:
    dash, verdict = _dash(result, args, lang), str(result.get("verdict") or "")
    env = env_in(result.get("env") or args.get("env_id"), lang)
    charts = result.total("charts")
    counts = _chart_counts(result)
    stale = result.total("stale_datasets")
    if verdict == "ok":
        n = plural(charts, CHARTS_RU if lang == "ru" else CHARTS, lang)
        return tr(
            lang,
            f"{dash}{env} is healthy: {n}, all returning data.",
            f"{dash}{env} в порядке: {n}, все возвращают данные.",
        )
    parts_en, parts_ru = [], []
    for key, en, ru in (
        ("error", "failing", "с ошибкой"),
        ("empty", "returning no rows", "без данных"),
        ("unchecked", "without a saved query", "без сохранённого запроса"),
        ("slow", "slow", "медленных"),
    ):
        if counts[key]:
            parts_en.append(f"{counts[key]} of {charts} charts {en}")
            parts_ru.append(f"{ru} — {counts[key]} из {charts}")
    if stale:
        parts_en.append(plural(stale, ("stale dataset", "stale datasets"), "en"))
        parts_ru.append(f"устаревших датасетов — {stale}")
    reasons = [r for r in result.items("reasons") if isinstance(r, str)]
    if not parts_en and reasons:
        parts_en = parts_ru = [md_escape(reasons[0])]
    state_en = "is broken" if verdict == "broken" else "has warnings"
    state_ru = "сломан" if verdict == "broken" else "с предупреждениями"
    text = tr(
        lang,
        f"{dash}{env} {state_en}: {', '.join(parts_en) or verdict}.",
        f"{dash}{env} {state_ru}: {', '.join(parts_ru) or verdict}.",
    )
    if verdict == "broken" and reasons:
        first = md_escape(reasons[0].rstrip("."))
        text += tr(lang, f" First: {first}.", f" Первая проблема: {first}.")
    return text


def validation(args: dict[str, Any], result: Result, lang: Lang) -> str:
    dash = _dash(result, args, lang)
    counts = result.get("counts") if isinstance(result.get("counts"), dict) else {}
    e, w, i = (int(counts.get(k) or 0) for k in ("error", "warning", "info"))
    passed = bool(result.get("passed", e == 0))
    tally_en = ", ".join(
        plural(n, forms, "en")
        for n, forms in (
            (e, ("error", "errors")),
            (w, ("warning", "warnings")),
            (i, ("note", "notes")),
        )
    )
    tally_ru = f"ошибок — {e}, предупреждений — {w}, замечаний — {i}"
    text = tr(
        lang,
        f"{dash} {'passed' if passed else 'failed'} validation: {tally_en}.",
        f"{dash} {'прошёл' if passed else 'не прошёл'} проверку: {tally_ru}.",
    )
    errors = [
        f for f in result.items("findings") if isinstance(f, dict) and f.get("severity") == "error"
    ]
    if errors:
        first = md_escape(f"{errors[0].get('object', '')}: {errors[0].get('issue', '')}")
        text += tr(lang, f" First error: {first}.", f" Первая ошибка: {first}.")
    return text


def documentation(args: dict[str, Any], result: Result, lang: Lang) -> str:
    label = dashboard_label(result.get("dashboard"), lang, args.get("dashboard_id"))
    of_ru = "дашборда " + label.removeprefix("дашборд ")
    lines = str(result.get("markdown") or "").splitlines()
    charts = next((ln for ln in lines if ln.startswith("## Charts (")), "")
    datasets = next((ln for ln in lines if ln.startswith("## Datasets (")), "")
    c = charts[len("## Charts (") : -1] if charts else "?"
    d = datasets[len("## Datasets (") : -1] if datasets else "?"
    return tr(
        lang,
        f"Wrote the documentation of {label}: {c} charts and {d} datasets described.",
        f"Подготовил документацию {of_ru}: описаны графики ({c}) и датасеты ({d}).",
    )


def _moved(result: Result) -> tuple[list[dict[str, Any]], dict[str, int]]:
    dashboards = [d for d in result.items("dashboards") if isinstance(d, dict)]
    actions: dict[str, int] = {}
    for d in dashboards:
        actions[str(d.get("action") or "")] = actions.get(str(d.get("action") or ""), 0) + 1
    return dashboards, actions


def _verified(result: Result, lang: Lang) -> str:
    if result.get("verified") is False:
        return tr(
            lang,
            " Some were not verified: check them in Superset.",
            " Не всё подтвердилось: проверьте в Superset.",
        )
    return tr(lang, " Verified on the target.", " Проверено на целевом окружении.")


def deploy(args: dict[str, Any], result: Result, lang: Lang) -> str:
    dashboards, _ = _moved(result)
    src = named(result, args, "source_env")
    tgt = named(result, args, "target_env")
    first = dashboards[0] if dashboards else {}
    title = first.get("title")
    noun = tr(lang, "dashboard", "дашборд")
    label = quote(title, lang) if title else f"{noun} {md_escape(args.get('dashboard_id', '?'))}"
    target_id = md_escape(result.get("dashboard_id") or first.get("target_id") or "?")
    created = (result.get("action") or first.get("action")) == "created"
    how_en = "created there" if created else "the copy there overwritten"
    how_ru = "создан там" if created else "копия там перезаписана"
    return tr(
        lang,
        f"Deployed {label} from {src} to {tgt} (#{target_id} on {tgt}, {how_en}).",
        f"Задеплоил {label} с {src} на {tgt} (#{target_id} на {tgt}, {how_ru}).",
    ) + _verified(result, lang)


def migration(args: dict[str, Any], result: Result, lang: Lang) -> str:
    dashboards, actions = _moved(result)
    src = named(result, args, "source_env")
    tgt = named(result, args, "target_env")
    n = plural(len(dashboards), DASHBOARDS_RU if lang == "ru" else DASHBOARDS, lang)
    made, over = actions.get("created", 0), actions.get("overwritten", 0)
    return tr(
        lang,
        f"Migrated {n} from {src} to {tgt}: {made} created, {over} overwritten.",
        f"Перенёс {n} с {src} на {tgt}: создано — {made}, перезаписано — {over}.",
    ) + _verified(result, lang)
