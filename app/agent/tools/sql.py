"""Database and SQL tools: explore, format, execute (SQL Lab), create dataset.

``superset_execute_sql`` is declared ``write`` (what it may do); each call is rated from
its parsed SQL (:func:`app.policy.sql_risk`, the declaration's ``call_risk``).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from app.agent.tools.base import Ru, ToolArgs, ToolDeps, arg, env_field
from app.agent.tools.declare import Family
from app.errors import SupersetError
from app.i18n import t
from app.policy import CardLine, Phrase, classify_sql, sql_risk
from app.superset.client import SupersetClient, own_limit
from app.vocab import Lang, Risk

MAX_ROWS_RETURNED = 200

family = Family("sql")

# "schema" shadows a deprecated BaseModel classmethod; the field still works as
# ``args.schema`` (instance data wins), so the contract's name is kept.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message='Field name "schema"', category=UserWarning)

    class ExploreDatabaseArgs(ToolArgs):
        env_id: str | None = env_field()
        database: str | None = arg(
            "Database id or name; omit to list the databases.",
            Ru("База данных", "Id или имя базы; пусто — список баз."),
            default=None,
        )
        schema: str | None = arg(  # type: ignore[assignment]
            "Schema to list tables of; needs a database.",
            Ru("Схема", "Схема, таблицы которой показать; нужна база."),
            default=None,
        )
        table: str | None = arg(
            "Table to describe (columns, types); needs a schema.",
            Ru("Таблица", "Таблица, которую описать (колонки, типы); нужна схема."),
            default=None,
        )

    class ExecuteSqlArgs(ToolArgs):
        sql: str = arg("The SQL to run in SQL Lab.", Ru("SQL", "Запрос для SQL Lab."), min_length=1)
        database: str | None = arg(
            "Database id or name; omit for the environment's default.",
            Ru("База данных", "Id или имя базы; пусто — база окружения по умолчанию."),
            default=None,
        )
        schema: str | None = arg(  # type: ignore[assignment]
            "Default schema for the query.",
            Ru("Схема", "Схема запроса по умолчанию."),
            default=None,
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
        database: str = arg(
            "Database id or name that holds the table.",
            Ru("База данных", "Id или имя базы, в которой таблица."),
        )
        table_name: str = arg(
            "Table name, or the new dataset's name for SQL.",
            Ru("Таблица", "Имя таблицы или, для SQL, имя нового датасета."),
        )
        schema: str | None = arg(  # type: ignore[assignment]
            "Schema of the table.", Ru("Схема", "Схема таблицы."), default=None
        )
        sql: str | None = arg(
            "SQL for a virtual dataset; omit for a physical table.",
            Ru("SQL", "SQL виртуального датасета; пусто — физическая таблица."),
            default=None,
        )
        env_id: str | None = env_field()


class FormatSqlArgs(ToolArgs):
    sql: str = arg(
        "The SQL text to pretty-print.", Ru("SQL", "SQL, который отформатировать."), min_length=1
    )
    env_id: str | None = env_field()


def _one_line(text: Any, limit: int = 80) -> str:
    flat = " ".join(str(text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _sql_values(args: Mapping[str, Any], lang: Lang) -> dict[str, str]:
    schema = args.get("schema")
    return {"sql_line": _one_line(args.get("sql")), "qualified": f"{schema}." if schema else ""}


def _sql_card(en: str, ru: str) -> CardLine:
    """A card line that may say ``{sql_line}`` (the SQL on one line) and ``{qualified}``."""
    return CardLine(en=en, ru=ru, values=_sql_values)


def _rate_sql(args: Mapping[str, Any]) -> Risk:
    return sql_risk(args.get("sql"))


def _sql_details(args: Mapping[str, Any]) -> dict[str, Any]:
    """Why the SQL is rated as it is (e.g. "calls pg_sleep(), which has side effects")."""
    return {"sql_risk_reason": classify_sql(args.get("sql")).reason}


async def _database(client: SupersetClient, database: str | None) -> dict[str, Any]:
    """The database named/numbered ``database``, or the only one when not given."""
    if database:
        return await client.database_by_name_or_id(database)
    dbs = await client.list_databases()
    if len(dbs) == 1:
        return dbs[0]
    names = ", ".join(str(d.get("database_name")) for d in dbs) or "none"
    raise SupersetError(f"which database? Give `database` (id or name); available: {names}")


def schema_choices(
    args: ExploreDatabaseArgs, result: dict[str, Any], lang: str
) -> list[tuple[str, str]]:
    """A database's schemas, when it has several, as the requests that list their tables."""
    schemas = [str(s) for s in result.get("schemas") or [] if s]
    database = (result.get("database") or {}).get("name")
    if result.get("level") != "schemas" or len(schemas) < 2 or not database:
        return []
    return [
        (schema, t("choose_schema", lang, schema=schema, database=database)) for schema in schemas
    ]


@family.tool(
    risk="read",
    can=Phrase("show databases, schemas and tables", "показать базы данных, схемы и таблицы"),
    example=Phrase("Show me the tables in the sales database", "Покажи таблицы в базе sales"),
    card=CardLine(
        en="Browse database {database} {schema} {table} in {env}",
        ru="Просмотреть базу данных {database} {schema} {table} в {env}",
    ),
    choices=schema_choices,
)
async def superset_explore_database(args: ExploreDatabaseArgs, deps: ToolDeps) -> dict[str, Any]:
    """Browses a database connection: no arguments lists databases; `database` lists its
    schemas; with `schema` its tables; with `table` the table's columns and types. Use
    before writing SQL or creating a dataset. Returns the requested level of the
    catalog."""
    env, client = deps.env_client(args.env_id)
    if not args.database:
        dbs = await client.list_databases()
        return {
            "env": env.id,
            "level": "databases",
            "databases": [
                {"id": d["id"], "name": d.get("database_name"), "backend": d.get("backend")}
                for d in dbs
            ],
        }
    db = await client.database_by_name_or_id(args.database)
    base = {"env": env.id, "database": {"id": db["id"], "name": db.get("database_name")}}
    if args.table:
        meta = await client.table_metadata(db["id"], args.table, args.schema)
        columns = [
            {"name": c.get("name") or c.get("column_name"), "type": str(c.get("type"))}
            for c in meta.get("columns", [])
        ]
        return base | {"level": "columns", "schema": args.schema, "table": args.table,
                       "columns": columns}  # fmt: skip
    if args.schema:
        tables = await client.tables(db["id"], args.schema)
        return base | {
            "level": "tables",
            "schema": args.schema,
            "tables": [{"name": t.get("value"), "type": t.get("type")} for t in tables],
        }
    return base | {"level": "schemas", "schemas": await client.schemas(db["id"])}


@family.tool(
    risk="read",
    can=Phrase("format SQL", "отформатировать SQL"),
    example=Phrase("Format this SQL query", "Отформатируй этот SQL-запрос"),
    card=_sql_card("Format SQL: {sql_line}", "Отформатировать SQL: {sql_line}"),
    presentation="text",
)
async def superset_format_sql(args: FormatSqlArgs, deps: ToolDeps) -> dict[str, Any]:
    """Pretty-prints SQL text with Superset's formatter without running it. Use when the
    user asks to tidy or read a query. Returns the formatted SQL."""
    env = deps.env(args.env_id)
    formatted = await deps.registry.client(env.id).format_sql(args.sql)
    return {"env": env.id, "sql": formatted}


@family.tool(
    risk="write",
    call_risk=_rate_sql,
    call_details=_sql_details,
    can=Phrase("run SQL", "выполнить SQL-запрос"),
    example=Phrase(
        "Run a query to count orders per day", "Выполни SQL-запрос, считающий заказы по дням"
    ),
    card=_sql_card("Run SQL on {env}: {sql_line}", "Выполнить SQL в {env}: {sql_line}"),
    presentation="table",
)
async def superset_execute_sql(args: ExecuteSqlArgs, deps: ToolDeps) -> dict[str, Any]:
    """Runs SQL through Superset's SQL Lab and returns columns and up to row_limit rows.
    Prefer SELECT queries; statements that change data need the user's confirmation
    and DROP/DELETE/TRUNCATE are treated as dangerous. Superset refuses DML unless the
    database allows it. Returns the result set."""
    env, client = deps.env_client(args.env_id)
    db = await _database(client, args.database)
    limit = max(1, int(args.row_limit))
    try:
        res = await client.execute_sql(db["id"], args.sql, schema=args.schema, row_limit=limit)
    except SupersetError as exc:
        hint = ""
        if "dml" in exc.message.lower() or exc.details.get("error_type") == "DML_NOT_ALLOWED_ERROR":
            hint = f" (database '{db.get('database_name')}' does not allow DML statements)"
        raise SupersetError(
            f"SQL Lab refused the query{hint}: {exc.message}",
            status_code=exc.status_code,
            **exc.details,
        ) from None
    rows = res.get("data") or []
    own_cap = own_limit(args.sql) or limit + 1
    columns = [c.get("column_name") or c.get("name") for c in res.get("columns") or []]
    shown = rows[: min(limit, MAX_ROWS_RETURNED)]
    return {
        "env": env.id,
        "database": db.get("database_name"),
        "status": res.get("status"),
        "columns": columns,
        "rows": shown,
        "row_count": len(rows),
        # cut by the row limit, not by the query's own LIMIT (what the person asked for)
        "truncated": len(shown) < len(rows) or (len(rows) >= limit and own_cap > limit),
    }


async def _no_such_dataset(args: CreateDatasetArgs, deps: ToolDeps) -> dict[str, Any]:
    """Before the card: a dataset of that name already on that database blocks the call
    (Superset would refuse it after the confirmation, as "Dataset could not be created")."""
    env, client = deps.env_client(args.env_id)
    db = await client.database_by_name_or_id(args.database)
    found = await client.existing_dataset(db["id"], args.table_name, args.schema)
    if found is None:
        return {}
    where = f"database '{db.get('database_name')}'" + (
        f" (schema {found['schema']})" if found.get("schema") else ""
    )
    url = f"{env.url}/explore/?datasource_type=table&datasource_id={found.get('id')}"
    return {"errors": [f"a dataset '{args.table_name}' already exists in {where}: {url}"]}


@family.tool(
    risk="write",
    preflight=_no_such_dataset,
    can=Phrase("create a dataset", "создать датасет"),
    example=Phrase("Create a dataset from the orders table", "Создай датасет из таблицы orders"),
    card=_sql_card(
        "Create dataset {qualified}{table_name} in {env}",
        "Создать датасет {qualified}{table_name} в {env}",
    ),
)
async def superset_create_dataset(args: CreateDatasetArgs, deps: ToolDeps) -> dict[str, Any]:
    """Creates a Superset dataset from a physical table (`table_name`, optional `schema`),
    or a virtual dataset from `sql` (`table_name` becomes its name). Use when the user
    wants to chart a table that has no dataset yet. Needs the user's confirmation.
    Returns the new dataset's id and URL."""
    env, client = deps.env_client(args.env_id)
    db = await client.database_by_name_or_id(args.database)
    created = await client.create_dataset(db["id"], args.table_name, args.schema, args.sql)
    return {
        "env": env.id,
        "id": created.get("id"),
        "table_name": args.table_name,
        "kind": "virtual" if args.sql else "physical",
        "database": db.get("database_name"),
        "schema": args.schema,
        "url": f"{env.url}/explore/?datasource_type=table&datasource_id={created.get('id')}",
    }


TOOLS = family.tools
