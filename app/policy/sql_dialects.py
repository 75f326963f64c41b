"""Which SQL readers a text is classified under, and how much text may be classified.

A SQL text is one statement or several depending on who reads it: quote, bracket and
comment rules differ between engines (e.g. ``SELECT 1 [']; DELETE FROM
orders; --']`` is one SELECT for PostgreSQL and MySQL, but SQLite and SQL Server read
``[…]`` as an identifier and then run the DELETE). :mod:`app.policy.sql` reads the text
in every dialect of :data:`CANDIDATE_DIALECTS` — one of each family of lexical rules —
plus the target database's own dialect when its backend is known
(:func:`dialects_for`), and the worst reading wins:

* generic SQL (standard quotes and comments; what Superset falls back to);
* PostgreSQL (dollar quotes ``$$…$$``, nested block comments, ``E'…'`` escapes);
* MySQL (backticks, backslash escapes, ``#`` comments, executable comments ``/*! */``);
* SQLite and SQL Server (``[…]`` identifiers; SQL Server nests block comments).

Limits (the caller's args model refuses longer text; :mod:`app.policy.sql` rates a text
over the token budget as dangerous without parsing further):

* :data:`MAX_SQL_CHARS` — the longest SQL text a tool accepts (100 000 characters);
* :data:`MAX_CLASSIFIED_TOKENS` — the most tokens one reading parses; a longer text is
  too long to classify and counts as dangerous (a person confirms it).

Pure data and functions; no I/O.
"""

from __future__ import annotations

from sqlglot.dialects.dialect import Dialect

from app.vocab import SQL_MAX_CLASSIFIED_TOKENS

MAX_SQL_CHARS = 100_000
MAX_CLASSIFIED_TOKENS = SQL_MAX_CLASSIFIED_TOKENS  # the vocabulary's one limit

#: Every text is read in all of these (generic first: the cheapest reading).
CANDIDATE_DIALECTS: tuple[str | None, ...] = (None, "postgres", "mysql", "sqlite", "tsql")

#: Superset's database ``backend`` (SQLAlchemy's dialect name) -> sqlglot's dialect.
BACKEND_DIALECTS: dict[str, str] = {
    "postgresql": "postgres",
    "postgres": "postgres",
    "redshift": "redshift",
    "mysql": "mysql",
    "mariadb": "mysql",
    "sqlite": "sqlite",
    "mssql": "tsql",
    "bigquery": "bigquery",
    "snowflake": "snowflake",
    "clickhouse": "clickhouse",
    "clickhousedb": "clickhouse",
    "oracle": "oracle",
    "trino": "trino",
    "presto": "presto",
    "hive": "hive",
    "databricks": "databricks",
    "spark": "spark",
    "duckdb": "duckdb",
    "doris": "doris",
    "starrocks": "starrocks",
    "teradatasql": "teradata",
    "teradata": "teradata",
    "awsathena": "athena",
    "athena": "athena",
    "druid": "druid",
    "exasol": "exasol",
}

DIALECT_NAMES: dict[str | None, str] = {
    None: "generic SQL",
    "postgres": "PostgreSQL",
    "mysql": "MySQL",
    "sqlite": "SQLite",
    "tsql": "SQL Server",
    "bigquery": "BigQuery",
    "clickhouse": "ClickHouse",
    "snowflake": "Snowflake",
    "oracle": "Oracle",
    "redshift": "Redshift",
    "duckdb": "DuckDB",
}


def backend_dialect(backend: str | None) -> str | None:
    """sqlglot's dialect for a Superset database backend (``postgresql``, ``mssql`` …), or
    None when the backend is not given or not one sqlglot reads."""
    if not backend:
        return None
    name = BACKEND_DIALECTS.get(str(backend).strip().lower())
    if name is None:
        return None
    try:
        Dialect.get_or_raise(name)
    except ValueError:
        return None
    return name


def dialects_for(backend: str | None = None) -> tuple[str | None, ...]:
    """The readings of a text: every candidate, and the backend's own dialect too when it
    is known and not a candidate already."""
    own = backend_dialect(backend)
    if own is None or own in CANDIDATE_DIALECTS:
        return CANDIDATE_DIALECTS
    return (*CANDIDATE_DIALECTS, own)


def dialect_name(dialect: str | None) -> str:
    """A reader's name for a person ("SQLite", "SQL Server", "generic SQL" …)."""
    return DIALECT_NAMES.get(dialect) or str(dialect)
