"""The offline planner's knowledge of the SQL tools: exploring a database (and a schema's
tables when asked for), formatting and running SQL, creating a dataset."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from app.planner import keywords as kw
from app.planner.knowledge import FollowStep, FollowUp, ToolKnowledge, row
from app.planner.labels import env_in, named
from app.planner.markup import fenced, md_escape, quote
from app.planner.numbers import Noun, count_of
from app.planner.phrases import say
from app.planner.readers import sql_text
from app.planner.request import Request
from app.planner.results import Result
from app.planner.slots import CallText, Slots, Texts, Value, phrased
from app.planner.tables import columns_of, fields_of, leader, names_of, rows_of
from app.planner.text import Lang

# --- reading ------------------------------------------------------------------------------
_ROW_LIMIT = re.compile(
    r"(?:limit|first|top|row_limit)\s*+(\d++)|(?<!\d)(\d++)\s*+(?:rows|строк)", re.IGNORECASE
)


def _explore_args(req: Request) -> dict[str, Any]:
    return {
        "env_id": req.env_id(),
        "database": kw.database_named(req),
        "schema": req.name_after(kw.AFTER_SCHEMA, stop=kw.STOP),
        "table": req.name_after(kw.AFTER_ONE_TABLE, stop=kw.STOP),
    }


def _execute_args(req: Request) -> dict[str, Any]:
    limit = _ROW_LIMIT.search(req.scan)
    return {
        "sql": sql_text(req),
        "database": req.name_after(kw.AFTER_DB, stop=kw.STOP),
        "schema": req.name_after(kw.AFTER_SCHEMA, stop=kw.STOP),
        "env_id": req.env_id(),
        **({"row_limit": int(limit.group(1) or limit.group(2))} if limit else {}),
    }


def _dataset_args(req: Request) -> dict[str, Any]:
    table = req.name_after(kw.AFTER_TABLE, stop=kw.STOP) or kw.name_before(req, kw.TABLE)
    schema = req.name_after(kw.AFTER_SCHEMA, stop=kw.STOP)
    if table and "." in table and schema is None:
        schema, table = table.rsplit(".", 1)
    if req.sql:
        named = req.name_after(kw.AFTER_NAMED)
        table = named or (req.quoted[0] if req.quoted else table)
    return {
        "database": req.name_after(kw.AFTER_DB, stop=kw.STOP),
        "table_name": table,
        "schema": schema,
        "sql": req.sql,
        "env_id": req.env_id(),
    }


# --- saying a call ------------------------------------------------------------------------
_PARTS = {
    "database": ("базу", "база"),
    "schema": ("схему", "схема"),
    "table": ("таблицу", "таблица"),
}
_DATABASES = CallText(
    doing=("listing the databases{env}", "показываю базы данных{env}"),
    ru_noun="просмотр баз данных",
    request=("show databases{env}", "покажи базы данных{env}"),
)
_EXPLORE_PARTS = CallText(
    doing=("exploring {parts}", "смотрю {parts}"),
    ru_noun="просмотр: {named}",
    request=("explore {parts}{env}", "покажи {parts}{env}"),
)


def _explore_said(s: Slots) -> Texts:
    parts = [k for k in _PARTS if s.v(k)]
    if not parts:
        return phrased(_DATABASES, s)
    en = " ".join(f"{k} {s.v(k)}" for k in parts)
    ru = " ".join(f"{_PARTS[k][0]} {s.v(k)}" for k in parts)
    named = ", ".join(f"{_PARTS[k][1]} {s.v(k)}" for k in parts)
    return phrased(_EXPLORE_PARTS, s, parts=(en, ru), named=named)


def _placed(s: Slots, on_db: str) -> dict[str, Value]:
    """The statement and where it runs: the database (``on_db``: "on database"), the schema."""
    schema = s.both("schema", "in schema", "в схеме")
    return {"db": s.both("database", on_db, "в базе"), "schema": schema, "sql": s.v("sql")}


_EXECUTE = CallText(
    doing=("running the query{db}{schema}{env}{limit}", "выполняю запрос{db}{schema}{env}{limit}"),
    ru_noun="выполнение запроса",
    request=(
        "run sql{db}{schema}{env}{limit}: {sql}",
        "выполни sql{db}{schema}{env}{limit}: {sql}",
    ),
)


def _execute_said(s: Slots) -> Texts:
    limit = s.args.get("row_limit")
    unusual = limit not in (None, 100)  # the default limit goes unsaid
    said = (f" with row_limit {limit}", f", row_limit {limit}") if unusual else ""
    return phrased(_EXECUTE, s, limit=said, **_placed(s, "on database"))


_DATASET = CallText(
    doing=("creating dataset {table}{db}", "создаю датасет {table}{db}"),
    ru_noun="создание датасета {table}",
    request=(
        "create dataset from table {table}{schema}{db}{env}",
        "создай датасет из таблицы {table}{schema}{db}{env}",
    ),
)
_DATASET_SQL = replace(
    _DATASET,
    request=(
        "create dataset named {table}{schema}{db}{env}: {sql}",
        "создай датасет с именем {table}{schema}{db}{env}: {sql}",
    ),
)


def _dataset_said(s: Slots) -> Texts:
    text = _DATASET_SQL if s.v("sql") else _DATASET
    return phrased(text, s, table=s.v("table_name"), **_placed(s, "in database"))


_FORMAT = CallText(
    doing=("formatting the SQL", "форматирую SQL"),
    ru_noun="форматирование SQL",
    request=("format sql{env}: {sql}", "отформатируй sql{env}: {sql}"),
)


# --- answers ------------------------------------------------------------------------------
ROWS = Noun(("row", "rows"), ("строку", "строки", "строк"))
LEVELS = {  # what a browse lists, level by level
    "databases": Noun(("database", "databases"), ("база данных", "базы данных", "баз данных")),
    "schemas": Noun(("schema", "schemas"), ("схема", "схемы", "схем")),
    "tables": Noun(("table", "tables"), ("таблица", "таблицы", "таблиц")),
    "columns": Noun(("column", "columns"), ("колонка", "колонки", "колонок")),
}


def _rows(args: dict[str, Any], result: Result, lang: Lang) -> str:
    columns, rows = rows_of(result)
    count = result.get("row_count") if isinstance(result.get("row_count"), int) else len(rows)
    if count == 0:
        return say("rows_none", lang)
    if count == 1 and rows:
        return say("rows_one", lang, fields=fields_of(columns, rows[0], lang))
    cut = say("rows_cut", lang) if result.get("truncated") else ""
    n = count_of(count, ROWS, lang)
    return say("rows_many", lang, n=n, cut=cut, leader=leader(columns, rows, lang))


def _explored(args: dict[str, Any], result: Result, lang: Lang) -> str:
    level = str(result.get("level"))
    if level not in LEVELS:
        return say("database_holds", lang)
    total = result.total(level)
    env = env_in(result.get("env") or args.get("env_id"), lang)
    if level == "databases" and not total:
        return say("databases_none", lang, env=env)
    database = result.get("database") if isinstance(result.get("database"), dict) else {}
    return say(
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


def _formatted(args: dict[str, Any], result: Result, lang: Lang) -> str:
    sql = str(result.get("sql") or args.get("sql") or "").strip()
    return f"{say('formatted', lang)}\n\n{fenced(sql, 'sql')}"


def _dataset_created(args: dict[str, Any], result: Result, lang: Lang) -> str:
    return say(
        "dataset_virtual" if result.get("kind") == "virtual" else "dataset_physical",
        lang,
        name=quote(result.get("table_name") or args.get("table_name") or "?", lang),
        ident=f" (#{md_escape(result.get('id'))})" if result.get("id") is not None else "",
        db=named(result, args, "database"),
        env=env_in(result.get("env") or args.get("env_id"), lang),
    )


# --- one more step: tables asked for, a database's schemas shown ----------------------------
TABLES = re.compile(r"\btables?\b|таблиц", re.IGNORECASE)
MAX_SCHEMAS = 8


def _tables_next(result: Result, args: dict[str, Any], lang: Lang) -> FollowStep | None:
    """One schema: its tables, in the same turn; several: which one (as plain lines)."""
    database = (result.get("database") or {}).get("name")
    schemas = [str(s) for s in result.items("schemas") if s]
    if result.get("level") != "schemas" or not database or not schemas:
        return None
    env = result.get("env") or args.get("env_id")
    base = {k: v for k, v in {"database": database, "env_id": env}.items() if v}
    if len(schemas) == 1:
        return FollowStep(args={**base, "schema": schemas[0]})
    head = say("schemas_which", lang, database=md_escape(database), count=len(schemas))
    listed = "\n".join(f"- {md_escape(s)}" for s in schemas[:MAX_SCHEMAS])
    return FollowStep(question=f"{head}\n\n{listed}")


# --- the tools ----------------------------------------------------------------------------
TOOLS = (
    ToolKnowledge(
        "superset_explore_database",
        rows=(
            row(
                240,
                [
                    r"\b(?:databases?|schemas?|tables?|columns?|dbs?|explore)\b",
                    r"баз[аыеуой]\w*\s+данных|\bбаз[аыеуой]?\b|\bбд\b|схем\w*|таблиц\w*"
                    r"|колон\w*|столбц\w*",
                ],
            ),
        ),
        read_args=_explore_args,
        phrase=_explore_said,
        report=_explored,
        follow_up=FollowUp(TABLES, _tables_next, pick="schema"),
    ),
    ToolKnowledge(
        "superset_format_sql",
        rows=(
            row(
                170,
                [
                    r"\b(?:format\w*|beautif\w*|prettif\w*|pretty|reformat\w*|indent\w*)\b",
                    r"\btidy\w*|\bclean\s+up\b",
                    r"отформатир\w*|форматир\w*|причеши\w*|выровня\w*|красив\w*",
                ],
            ),
        ),
        read_args=lambda req: {"sql": sql_text(req), "env_id": req.env_id()},
        required=("sql",),
        phrase=lambda s: phrased(_FORMAT, s, sql=s.v("sql")),
        report=_formatted,
    ),
    ToolKnowledge(
        "superset_execute_sql",
        rows=(
            row(
                190,
                [
                    r"\bsqlquery\b",
                    r"\b(?:run|execute|exec)\b\s+(?:a\s+|the\s+|this\s+|my\s+)?(?:sql|query)",
                    r"(?:выполни|запусти|исполни)\w*\s+(?:\w+\s+)?(?:sql|запрос\w*|скуль)",
                ],
            ),
        ),
        read_args=_execute_args,
        required=("sql",),
        phrase=_execute_said,
        report=_rows,
    ),
    ToolKnowledge(
        "superset_create_dataset",
        rows=(
            row(
                150,
                [
                    r"\b(?:create|make|add|new|register|build)\b.{0,50}\bdataset",
                    r"\bdataset\s+(?:from|for|on)\b",
                    r"(?:созда|сдела|добав|заведи|заведит|зарегистрир)\w*.{0,30}"
                    r"(?:датасет|набор\w*\s+данных)",
                    r"датасет\w*\s+(?:из|по|на\s+основе)|нов\w*\s+(?:датасет|набор\w*\s+данных)",
                ],
            ),
        ),
        read_args=_dataset_args,
        required=("database", "table_name"),
        phrase=_dataset_said,
        report=_dataset_created,
    ),
)
