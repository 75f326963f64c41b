"""The offline planner's answers about the SQL tools' results (the ``report`` of their
entries in :mod:`app.planner.tools.sql`): a query's rows, a database explored level by
level, formatted SQL, a created dataset; the question a database's schemas raise when
its tables were asked for (the follow-up); and their sentences in English and Russian
(``SAID``)."""

from __future__ import annotations

from typing import Any

from app.planner.knowledge import FollowStep
from app.planner.labels import env_in, named
from app.planner.markup import fenced, md_escape, quote
from app.planner.numbers import Noun, count_of
from app.planner.phrases import sayer
from app.planner.results import Result
from app.planner.tables import columns_of, fields_of, leader, names_of, rows_of
from app.planner.text import Lang

ROWS = Noun(("row", "rows"), ("строку", "строки", "строк"))
LEVELS = {  # what a browse lists, level by level
    "databases": Noun(("database", "databases"), ("база данных", "базы данных", "баз данных")),
    "schemas": Noun(("schema", "schemas"), ("схема", "схемы", "схем")),
    "tables": Noun(("table", "tables"), ("таблица", "таблицы", "таблиц")),
    "columns": Noun(("column", "columns"), ("колонка", "колонки", "колонок")),
}
#: this family's answer sentences, (English, Russian) with the same placeholders, said by _say
SAID: dict[str, tuple[str, str]] = {
    "rows_none": ("The query returned no rows.", "Запрос не вернул ни одной строки."),
    "rows_one": ("The query returned {fields}.", "Результат: {fields}."),
    "rows_many": ("The query returned {n}{cut}{leader}.", "Запрос вернул {n}{cut}{leader}."),
    "rows_cut": (" (cut at the row limit)", " (обрезано по лимиту строк)"),
    "database_holds": ("Here is what the database holds.", "Вот что есть в базе."),
    "databases_none": ("No databases{env}.", "Баз данных{env} нет."),
    "databases_listed": ("{n}{env}: {listed}.", "{n}{env}: {listed}."),
    "schemas_listed": ("Database {db} has {n}: {listed}.", "В базе {db} {n}: {listed}."),
    "tables_listed": (
        "Schema {schema} of {db} has {n}: {listed}.",
        "В схеме {schema} базы {db} {n}: {listed}.",
    ),
    "columns_listed": ("Table {table} has {n}: {listed}.", "В таблице {table} {n}: {listed}."),
    "formatted": ("Formatted:", "Отформатировал:"),
    "dataset_virtual": (
        "Created the virtual dataset {name}{ident} on database {db}{env}.",
        "Создал виртуальный датасет {name}{ident} в базе {db}{env}.",
    ),
    "dataset_physical": (
        "Created the physical dataset {name}{ident} on database {db}{env}.",
        "Создал физический датасет {name}{ident} в базе {db}{env}.",
    ),
    "schemas_which": (
        "{database} has {count} schemas. Tables of which one?",
        "В базе {database} схем: {count}. Таблицы какой из них показать?",
    ),
}


_say = sayer(SAID)


def queried(args: dict[str, Any], result: Result, lang: Lang) -> str:
    columns, rows = rows_of(result)
    count = result.get("row_count") if isinstance(result.get("row_count"), int) else len(rows)
    if count == 0:
        return _say("rows_none", lang)
    if count == 1 and rows:
        return _say("rows_one", lang, fields=fields_of(columns, rows[0], lang))
    cut = _say("rows_cut", lang) if result.get("truncated") else ""
    n = count_of(count, ROWS, lang)
    return _say("rows_many", lang, n=n, cut=cut, leader=leader(columns, rows, lang))


def explored(args: dict[str, Any], result: Result, lang: Lang) -> str:
    level = str(result.get("level"))
    if level not in LEVELS:
        return _say("database_holds", lang)
    total = result.total(level)
    env = env_in(result.get("env") or args.get("env_id"), lang)
    if level == "databases" and not total:
        return _say("databases_none", lang, env=env)
    database = result.get("database") if isinstance(result.get("database"), dict) else {}
    return _say(
        f"{level}_listed",
        lang,
        env=env,
        db=md_escape(database.get("name") or args.get("database") or "?"),
        schema=md_escape(result.get("schema") or ""),
        table=md_escape(result.get("table") or ""),
        n=count_of(total, LEVELS[level], lang),
        listed=columns_of(result, total)
        if level == "columns"
        else names_of(result.items(level), "name", total, lang),
    )


def formatted(args: dict[str, Any], result: Result, lang: Lang) -> str:
    sql = str(result.get("sql") or args.get("sql") or "").strip()
    return f"{_say('formatted', lang)}\n\n{fenced(sql, 'sql')}"


def dataset_created(args: dict[str, Any], result: Result, lang: Lang) -> str:
    return _say(
        "dataset_virtual" if result.get("kind") == "virtual" else "dataset_physical",
        lang,
        name=quote(result.get("table_name") or args.get("table_name") or "?", lang),
        ident=f" (#{md_escape(result.get('id'))})" if result.get("id") is not None else "",
        db=named(result, args, "database"),
        env=env_in(result.get("env") or args.get("env_id"), lang),
    )


# --- one more step: a database's schemas shown, its tables asked for ------------------------
MAX_SCHEMAS = 8


def tables_next(result: Result, args: dict[str, Any], lang: Lang) -> FollowStep | None:
    """One schema: its tables, in the same turn; several: which one (as plain lines)."""
    database = (result.get("database") or {}).get("name")
    schemas = [str(s) for s in result.items("schemas") if s]
    if result.get("level") != "schemas" or not database or not schemas:
        return None
    env = result.get("env") or args.get("env_id")
    base = {k: v for k, v in {"database": database, "env_id": env}.items() if v}
    if len(schemas) == 1:
        return FollowStep(args={**base, "schema": schemas[0]})
    head = _say("schemas_which", lang, database=md_escape(database), count=len(schemas))
    listed = "\n".join(f"- {md_escape(s)}" for s in schemas[:MAX_SCHEMAS])
    return FollowStep(question=f"{head}\n\n{listed}")
