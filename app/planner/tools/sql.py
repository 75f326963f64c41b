"""The offline planner's knowledge of the SQL tools: exploring a database (and a schema's
tables when asked for), formatting and running SQL, creating a dataset. Their answers (and
their sentences) are in :mod:`app.planner.tools.sql_answers`."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from app.planner import keywords as kw
from app.planner.knowledge import FollowUp, ToolKnowledge, row
from app.planner.readers import sql_text
from app.planner.request import Request
from app.planner.slots import CallText, Slots, Texts, Value, phrased
from app.planner.tools import sql_answers as answer

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


# --- one more step: tables asked for, a database's schemas shown ----------------------------
TABLES = re.compile(r"\btables?\b|таблиц", re.IGNORECASE)


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
        report=answer.explored,
        follow_up=FollowUp(TABLES, answer.tables_next, pick="schema"),
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
        report=answer.formatted,
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
        report=answer.queried,
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
        report=answer.dataset_created,
    ),
)
