"""The SQL family's arguments (:mod:`app.agent.tools.sql`): SQL text capped at
``MAX_SQL_CHARS`` (100 000 characters), and schema / table / database names checked by
:mod:`app.agent.tools.names` (issue 23 items 3 and 6)."""

from __future__ import annotations

import warnings

from app.agent.tools.base import Ru, ToolArgs, arg, env_field
from app.agent.tools.names import DatabaseName, SqlIdentifier
from app.policy.sql_dialects import MAX_SQL_CHARS

# "schema" shadows a deprecated BaseModel classmethod; the field still works as
# ``args.schema`` (instance data wins), so the contract's name is kept.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message='Field name "schema"', category=UserWarning)

    class ExploreDatabaseArgs(ToolArgs):
        env_id: str | None = env_field()
        database: DatabaseName | None = arg(
            "Database id or name; omit to list the databases.",
            Ru("База данных", "Id или имя базы; пусто — список баз."),
            default=None,
        )
        schema: SqlIdentifier | None = arg(  # type: ignore[assignment]
            "Schema to list tables of; needs a database.",
            Ru("Схема", "Схема, таблицы которой показать; нужна база."),
            default=None,
        )
        table: SqlIdentifier | None = arg(
            "Table to describe (columns, types); needs a schema.",
            Ru("Таблица", "Таблица, которую описать (колонки, типы); нужна схема."),
            default=None,
        )

    class ExecuteSqlArgs(ToolArgs):
        sql: str = arg(
            "The SQL to run in SQL Lab.",
            Ru("SQL", "Запрос для SQL Lab."),
            min_length=1,
            max_length=MAX_SQL_CHARS,
        )
        database: DatabaseName | None = arg(
            "Database id or name; omit for the environment's default.",
            Ru("База данных", "Id или имя базы; пусто — база окружения по умолчанию."),
            default=None,
        )
        schema: SqlIdentifier | None = arg(  # type: ignore[assignment]
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
        database: DatabaseName = arg(
            "Database id or name that holds the table.",
            Ru("База данных", "Id или имя базы, в которой таблица."),
        )
        table_name: SqlIdentifier = arg(
            "Table name, or the new dataset's name for SQL.",
            Ru("Таблица", "Имя таблицы или, для SQL, имя нового датасета."),
        )
        schema: SqlIdentifier | None = arg(  # type: ignore[assignment]
            "Schema of the table.", Ru("Схема", "Схема таблицы."), default=None
        )
        sql: str | None = arg(
            "SQL for a virtual dataset; omit for a physical table.",
            Ru("SQL", "SQL виртуального датасета; пусто — физическая таблица."),
            default=None,
            max_length=MAX_SQL_CHARS,
        )
        env_id: str | None = env_field()


class FormatSqlArgs(ToolArgs):
    sql: str = arg(
        "The SQL text to pretty-print.",
        Ru("SQL", "SQL, который отформатировать."),
        min_length=1,
        max_length=MAX_SQL_CHARS,
    )
    env_id: str | None = env_field()
