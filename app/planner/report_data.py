"""One- or two-sentence answers for the database tools: SQL results, exploring, formatting,
datasets and the permission audit. Rows are the page's job (a table from the tool result);
the sentence says how many and what stands out ("3 rows; East has the highest total
(59,849.79)"). Values from Superset are escaped; numbers are formatted for the language."""

from __future__ import annotations

import re
from typing import Any

from app.planner.labels import env_in, named
from app.planner.markup import md_escape, quote
from app.planner.numbers import fmt_number, is_number, plural
from app.planner.phrases import tr
from app.planner.results import Result
from app.planner.text import Lang

ROWS = ("row", "rows")
ROWS_RU = ("строку", "строки", "строк")
MAX_NAMES = 5
_BACKTICKS = re.compile(r"`+")


def value_text(value: Any, lang: Lang) -> str:
    if is_number(value):
        return fmt_number(value, lang)
    if value is None:
        return "NULL"
    return md_escape(value if isinstance(value, str) else str(value))


def _rows(result: Result) -> tuple[list[str], list[dict[str, Any]]]:
    columns = [str(c) for c in result.items("columns")]
    rows: list[dict[str, Any]] = []
    for row in result.items("rows"):
        if isinstance(row, dict):
            rows.append(row)
        elif isinstance(row, list):
            rows.append(dict(zip(columns, row, strict=False)))
    if not columns and rows:
        columns = list(rows[0])
    return columns, rows


def _leader(columns: list[str], rows: list[dict[str, Any]], lang: Lang) -> str:
    numeric = [c for c in columns if all(is_number(r.get(c)) for r in rows)]
    labels = [c for c in columns if c not in numeric]
    if not numeric or not labels:
        return ""
    measure, label = numeric[-1], labels[0]
    top = max(rows, key=lambda r: r[measure])
    name, value = value_text(top.get(label), lang), fmt_number(top[measure], lang)
    col = md_escape(measure)
    return tr(
        lang,
        f"; {name} has the highest {col} ({value})",
        f"; больше всего {col} у {name} ({value})",
    )


def execute_sql(args: dict[str, Any], result: Result, lang: Lang) -> str:
    columns, rows = _rows(result)
    count = result.get("row_count") if isinstance(result.get("row_count"), int) else len(rows)
    cut = tr(lang, " (cut at the row limit)", " (обрезано по лимиту строк)")
    cut = cut if result.get("truncated") else ""
    if count == 0:
        return tr(lang, "The query returned no rows.", "Запрос не вернул ни одной строки.")
    if count == 1 and rows:
        fields = ", ".join(
            f"{md_escape(c)} = {value_text(rows[0].get(c), lang)}" for c in columns[:4]
        )
        more = "…" if len(columns) > 4 else ""
        return tr(lang, f"The query returned {fields}{more}.", f"Результат: {fields}{more}.")
    n = plural(count, ROWS_RU if lang == "ru" else ROWS, lang)
    leader = _leader(columns, rows, lang)
    return tr(lang, f"The query returned {n}{cut}{leader}.", f"Запрос вернул {n}{cut}{leader}.")


def _names(items: list[Any], key: str, total: int, lang: Lang) -> str:
    names = [md_escape(i.get(key) if isinstance(i, dict) else i) for i in items[:MAX_NAMES]]
    more = total - len(names)
    tail = tr(lang, f" and {more} more", f" и ещё {more}") if more > 0 else ""
    return ", ".join(names) + tail


# The levels below the databases: what each lists (en, ru noun forms) and whose it is.
_NOUNS: dict[str, tuple[tuple[str, str], tuple[str, str, str]]] = {
    "schemas": (("schema", "schemas"), ("схема", "схемы", "схем")),
    "tables": (("table", "tables"), ("таблица", "таблицы", "таблиц")),
    "columns": (("column", "columns"), ("колонка", "колонки", "колонок")),
}
_WHOSE: dict[str, tuple[str, str]] = {
    "schemas": ("Database {db} has", "В базе {db}"),
    "tables": ("Schema {schema} of {db} has", "В схеме {schema} базы {db}"),
    "columns": ("Table {table} has", "В таблице {table}"),
}


def _listed(level: str, result: Result, total: int, lang: Lang) -> str:
    if level != "columns":
        return _names(result.items(level), "name", total, lang)
    cols = [c for c in result.items("columns") if isinstance(c, dict)]
    return ", ".join(
        f"{md_escape(c.get('name'))} ({md_escape(c.get('type'))})" for c in cols[:MAX_NAMES]
    ) + ("…" if total > MAX_NAMES else "")


def explore(args: dict[str, Any], result: Result, lang: Lang) -> str:
    level = str(result.get("level"))
    database = result.get("database") if isinstance(result.get("database"), dict) else {}
    if level == "databases":
        total = result.total("databases")
        n = plural(total, ("база данных", "базы данных", "баз данных"), lang)
        n_en = plural(total, ("database", "databases"), lang)
        names = _names(result.items("databases"), "name", total, lang)
        env = env_in(result.get("env") or args.get("env_id"), lang)
        return (
            tr(lang, f"{n_en}{env}: {names}.", f"{n}{env}: {names}.")
            if total
            else tr(lang, f"No databases{env}.", f"Баз данных{env} нет.")
        )
    if level not in _NOUNS:
        return tr(lang, "Here is what the database holds.", "Вот что есть в базе.")
    (en_forms, ru_forms), (en_whose, ru_whose) = _NOUNS[level], _WHOSE[level]
    whose = {
        "db": md_escape(database.get("name") or args.get("database") or "?"),
        "schema": md_escape(result.get("schema") or ""),
        "table": md_escape(result.get("table") or ""),
    }
    total = result.total(level)
    n = plural(total, ru_forms if lang == "ru" else en_forms, lang)
    listed = _listed(level, result, total, lang)
    return tr(
        lang,
        f"{en_whose.format(**whose)} {n}: {listed}.",
        f"{ru_whose.format(**whose)} {n}: {listed}.",
    )


def format_sql(args: dict[str, Any], result: Result, lang: Lang) -> str:
    sql = str(result.get("sql") or args.get("sql") or "").strip()
    longest = max((len(run) for run in _BACKTICKS.findall(sql)), default=0)
    fence = "`" * max(3, longest + 1)
    head = tr(lang, "Formatted:", "Отформатировал:")
    return f"{head}\n\n{fence}sql\n{sql}\n{fence}"


def create_dataset(args: dict[str, Any], result: Result, lang: Lang) -> str:
    name = quote(result.get("table_name") or args.get("table_name") or "?", lang)
    ident = f" (#{md_escape(result.get('id'))})" if result.get("id") is not None else ""
    db = named(result, args, "database")
    env = env_in(result.get("env") or args.get("env_id"), lang)
    virtual = result.get("kind") == "virtual"
    return tr(
        lang,
        f"Created the {'virtual' if virtual else 'physical'} dataset {name}{ident} "
        f"on database {db}{env}.",
        f"Создал {'виртуальный' if virtual else 'физический'} датасет {name}{ident} "
        f"в базе {db}{env}.",
    )


def audit(args: dict[str, Any], result: Result, lang: Lang) -> str:
    roles = [r for r in result.items("roles") if isinstance(r, dict)]
    env = env_in(result.get("env") or args.get("env_id"), lang)
    flagged = [md_escape(r) for r in result.items("flagged_roles")]
    if len(roles) == 1:
        role = roles[0]
        name, perms = md_escape(role.get("name")), int(role.get("permission_count") or 0)
        users, flags = len(role.get("users") or []), len(role.get("flags") or [])
        return tr(
            lang,
            f"Role {name}{env} has {plural(perms, ('permission', 'permissions'), lang)} and "
            f"{plural(users, ('user', 'users'), lang)}; "
            + (
                f"{plural(flags, ('over-broad grant', 'over-broad grants'), lang)}."
                if flags
                else "no over-broad grants."
            ),
            f"У роли {name}{env} прав — {perms}, пользователей — {users}; "
            + (f"слишком широких прав — {flags}." if flags else "слишком широких прав нет."),
        )
    users = result.get("user_count") or 0
    head = tr(
        lang,
        f"Audited {len(roles)} roles and {users} users{env}",
        f"Проверил роли ({len(roles)}) и пользователей ({users}){env}",
    )
    if not flagged:
        return head + tr(lang, "; no role has over-broad grants.", "; слишком широких прав нет.")
    return head + tr(
        lang,
        f"; over-broad grants in {', '.join(flagged)}.",
        f"; слишком широкие права у: {', '.join(flagged)}.",
    )
