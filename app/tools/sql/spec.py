"""Database and SQL tools' specs: explore, format, execute (SQL Lab), create dataset.
(Implementations: ``run.py`` beside it.)

The arguments: SQL text capped at ``MAX_SQL_CHARS`` (100 000 characters), and schema /
table / database names checked by :mod:`app.tools.args` (Superset writes some of them into
SQL unescaped). All four fit dataset pages; running SQL and creating a dataset are open to
every role (the contract lists no role for them): each call's own risk decides its card.

``superset_execute_sql`` is declared ``write`` (what it may do); each call is rated from
its parsed SQL (:func:`app.policy.sql_risk`, the spec's ``call_risk``), and the card says
why (``call_reason``; templated SQL is dangerous: :mod:`app.policy.sql_templates`).

``superset_create_dataset`` with ``sql`` makes a virtual dataset, whose SQL Superset runs
again on every render of every chart on it: the call carries at least its SQL's risk. A
read-only query is a write (a dataset is created); any SQL rated worse than a read
(DML, DDL, a side-effect or unknown function, templated text) is dangerous — repeated on
each render it would repeat its effect, so a person confirms it after the countdown,
with the reason on the card. (Not refused: an unknown, pure function also rates
``write``.)
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from app.i18n import t
from app.policy.sql import SqlVerdict, classify_sql, sql_risk
from app.policy.sql_dialects import MAX_SQL_CHARS
from app.tools.args import DatabaseName, Ru, SqlIdentifier, ToolArgs, arg, env_field, optional
from app.tools.declare import EVERYONE, Family
from app.vocab import Lang, Risk

family = Family("sql")


def _sql(description: str, hint: str, **kwargs: Any) -> Any:
    """A SQL text argument, capped at ``MAX_SQL_CHARS`` characters like every SQL a tool takes."""
    return arg(description, Ru("SQL", hint), **kwargs, max_length=MAX_SQL_CHARS)


def _database(description: str, hint: str, **kwargs: Any) -> Any:
    """A database connection argument (by id or name: :data:`DatabaseName`)."""
    return arg(description, Ru("База данных", hint), **kwargs)


def _schema(description: str, hint: str) -> Any:
    """A schema argument the call may omit (:data:`SqlIdentifier`)."""
    return optional(description, Ru("Схема", hint))


# "schema" shadows a deprecated BaseModel classmethod; the field still works as
# ``args.schema`` (instance data wins), so the contract's name is kept.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message='Field name "schema"', category=UserWarning)

    class ExploreDatabaseArgs(ToolArgs):
        env_id: str | None = env_field()
        database: DatabaseName | None = _database(
            "Database id or name; omit to list the databases.",
            "Id или имя базы; пусто — список баз.",
            default=None,
        )
        schema: SqlIdentifier | None = _schema(  # type: ignore[assignment]
            "Schema to list tables of; needs a database.",
            "Схема, таблицы которой показать; нужна база.",
        )
        table: SqlIdentifier | None = optional(
            "Table to describe (columns, types); needs a schema.",
            Ru("Таблица", "Таблица, которую описать (колонки, типы); нужна схема."),
        )

    class ExecuteSqlArgs(ToolArgs):
        sql: str = _sql("The SQL to run in SQL Lab.", "Запрос для SQL Lab.", min_length=1)
        database: DatabaseName | None = _database(
            "Database id or name; omit for the environment's default.",
            "Id или имя базы; пусто — база окружения по умолчанию.",
            default=None,
        )
        schema: SqlIdentifier | None = _schema(  # type: ignore[assignment]
            "Default schema for the query.", "Схема запроса по умолчанию."
        )
        env_id: str | None = env_field()
        row_limit: int = arg(
            "Maximum rows to return (1-10000).",
            Ru("Лимит строк", "Сколько строк вернуть, не больше (1–10000)."),
            default=100,
            ge=1,
            le=10000,
        )

    class CreateDatasetArgs(ToolArgs):
        database: DatabaseName = _database(
            "Database id or name that holds the table.", "Id или имя базы, в которой таблица."
        )
        table_name: SqlIdentifier = arg(
            "Table name, or the new dataset's name for SQL.",
            Ru("Таблица", "Имя таблицы или, для SQL, имя нового датасета."),
        )
        schema: SqlIdentifier | None = _schema("Schema of the table.", "Схема таблицы.")  # type: ignore[assignment]
        sql: str | None = _sql(
            "SQL for a virtual dataset; omit for a physical table.",
            "SQL виртуального датасета; пусто — физическая таблица.",
            default=None,
        )
        env_id: str | None = env_field()


class FormatSqlArgs(ToolArgs):
    sql: str = _sql("The SQL text to pretty-print.", "SQL, который отформатировать.", min_length=1)
    env_id: str | None = env_field()


def _one_line(text: Any, limit: int = 80) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _sql_values(args: Mapping[str, Any], lang: Lang) -> dict[str, str]:
    schema = args.get("schema")
    return {"sql_line": _one_line(args.get("sql")), "qualified": f"{schema}." if schema else ""}


def said(verdict: SqlVerdict, lang: Lang) -> str:
    """A verdict's reason in ``lang``: its catalog sentence, else the classifier's words."""
    return t(verdict.key, lang) if verdict.key else verdict.reason


def rate_sql(args: Mapping[str, Any]) -> Risk:
    """One call's risk: its parsed SQL's (:func:`app.policy.sql_risk`)."""
    return sql_risk(args.get("sql"))


def sql_reason(args: Mapping[str, Any], lang: Lang) -> str:
    """The card's reason: why the SQL is rated as it is, in ``lang`` (e.g. "calls
    pg_sleep(), which has side effects", "templated SQL: …")."""
    return said(classify_sql(args.get("sql")), lang)


def rate_dataset(args: Mapping[str, Any]) -> Risk:
    """A dataset: a write; a virtual one whose SQL is rated worse than a read is a
    delete (dangerous), since Superset runs that SQL again on every chart render."""
    sql = args.get("sql")
    if not sql:  # no SQL (or ""): a physical table, as the implementation sends it
        return "write"
    return "write" if sql_risk(sql) == "read" else "delete"


def dataset_reason(args: Mapping[str, Any], lang: Lang) -> str | None:
    """The card's reason for a virtual dataset: its SQL runs on every render, and what
    that SQL is rated; None for a physical table (the tool's own risk)."""
    if not args.get("sql"):
        return None
    return t("dataset_sql_reason", lang, reason=sql_reason(args, lang))


superset_explore_database = family.spec(
    "superset_explore_database", ExploreDatabaseArgs, "read", pages=("dataset",),
    description="""Browses a database connection: no arguments lists databases; `database`
    lists its schemas; with `schema` its tables; with `table` the table's columns and
    types. Use before writing SQL or creating a dataset. Returns the requested level of
    the catalog.""",
    en=("show databases, schemas and tables", "Show me the tables in the sales database",
        "Browse database {database} {schema} {table} in {env}"),
    ru=("показать базы данных, схемы и таблицы", "Покажи таблицы в базе sales",
        "Просмотреть базу данных {database} {schema} {table} в {env}"),
)  # fmt: skip

superset_format_sql = family.spec(
    "superset_format_sql", FormatSqlArgs, "read", card_values=_sql_values, pages=("dataset",),
    presentation="text",
    description="""Pretty-prints SQL text with Superset's formatter without running it. Use
    when the user asks to tidy or read a query. Returns the formatted SQL.""",
    en=("format SQL", "Format this SQL query", "Format SQL: {sql_line}"),
    ru=("отформатировать SQL", "Отформатируй этот SQL-запрос", "Отформатировать SQL: {sql_line}"),
)  # fmt: skip

superset_execute_sql = family.spec(
    "superset_execute_sql", ExecuteSqlArgs, "write", card_values=_sql_values, roles=EVERYONE,
    pages=("dataset",), presentation="table", call_risk=rate_sql, call_reason=sql_reason,
    description="""Runs SQL through Superset's SQL Lab and returns columns and up to
    row_limit rows. Prefer SELECT queries; statements that change data need the user's
    confirmation and DROP/DELETE/TRUNCATE are treated as dangerous. Superset refuses DML
    unless the database allows it. Returns the result set.""",
    en=("run SQL", "Run a query to count orders per day", "Run SQL on {env}: {sql_line}"),
    ru=("выполнить SQL-запрос", "Выполни SQL-запрос, считающий заказы по дням",
        "Выполнить SQL в {env}: {sql_line}"),
)  # fmt: skip

superset_create_dataset = family.spec(
    "superset_create_dataset", CreateDatasetArgs, "write", card_values=_sql_values, roles=EVERYONE,
    pages=("dataset",), call_risk=rate_dataset, call_reason=dataset_reason,
    description="""Creates a Superset dataset from a physical table (`table_name`, optional
    `schema`), or a virtual dataset from `sql` (`table_name` becomes its name). Use when
    the user wants to chart a table that has no dataset yet. Needs the user's
    confirmation. Returns the new dataset's id and URL.""",
    en=("create a dataset", "Create a dataset from the orders table",
        "Create dataset {qualified}{table_name} in {env}"),
    ru=("создать датасет", "Создай датасет из таблицы orders",
        "Создать датасет {qualified}{table_name} в {env}"),
    undo="undoable",  # the dataset is deleted
)  # fmt: skip
