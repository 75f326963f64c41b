"""A SQL text is read by every engine that could read it differently (generic, PostgreSQL,
MySQL, SQLite, SQL Server, and the database's own dialect when its backend is known); the
worst reading wins, a reading that does not parse is dangerous, executable comments of
every form are dangerous, and a text over the token budget is dangerous without being
parsed."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.cpu import off_loop
from app.policy import classify_sql, sql_risk
from app.policy.sql_dialects import (
    CANDIDATE_DIALECTS,
    MAX_CLASSIFIED_TOKENS,
    backend_dialect,
    dialects_for,
)

BRACKET = "SELECT 1 [']; DELETE FROM orders; --']"


@pytest.mark.parametrize(
    ("sql", "risk", "why"),
    [
        (BRACKET, "delete", "DELETE"),  # SQLite and SQL Server read [...] as a name, then DELETE
        ('SELECT 1 ["]; DELETE FROM orders; --"]', "delete", "DELETE"),  # same with ["]
        ("SELECT * FROM t [']; DELETE FROM orders; --']", "delete", "DELETE"),  # after FROM t
        ("SELECT 1 [`]; DROP TABLE t; --`]", "delete", "DROP"),  # same with a backtick
        ("SELECT 1 /*M!100000 , sleep(5) */", "delete", "executable comment"),  # MariaDB runs it
        ("SELECT 1 /*M! ; DELETE FROM orders */", "delete", "executable comment"),  # no version
        ("SELECT 1 /*!50000 INTO OUTFILE '/tmp/x' */", "delete", "executable comment"),  # MySQL
        ("SELECT 1 /*! ; DELETE FROM t */", "delete", "executable comment"),  # MySQL, no version
        ("SELECT 1 /*m!100000 x */", "delete", "executable comment"),  # lower-case m too
        ("SELECT 'a\\'; DELETE FROM t; --'", "delete", "DELETE"),  # backslash: MySQL hides it
        ("SELECT 1 #'\n; DELETE FROM t; --'", "delete", "parsed"),  # '#' comments MySQL only
        ("SELECT 1 /* /* */ ; DELETE FROM t; /* */ */", "delete", "MySQL"),  # nesting differs
        ("SELECT $$; DELETE FROM t; $$", "delete", "DELETE"),  # dollar quotes: PostgreSQL only
        ("SELECT $a$; DELETE FROM t; $a$", "delete", "DELETE"),  # tagged dollar quotes
        ("SELECT `a` FROM `t`", "delete", "could not be parsed"),  # a reading that fails counts
        ("SELECT TOP 10 * FROM t", "delete", "could not be parsed"),  # SQL Server only
        ("SELECT [name] FROM [dbo].[t]", "delete", "could not be parsed"),  # brackets: 2 of 5
        ("VALUES (1), (2)", "delete", "MySQL"),  # MySQL cannot parse a bare VALUES list
        ("SELECT 1 /* [']; DELETE FROM t; --'] */", "read", "read-only"),  # a comment for all
        ("SELECT '[''; DELETE FROM t; --'']'", "read", "read-only"),  # a string for all five
        ('SELECT "col" FROM "t" WHERE x = \'[y]\'', "read", "read-only"),  # quotes agree
        ("SELECT * FROM orders LIMIT 10", "read", "read-only"),  # plain reads stay reads
        ("SELECT a::int, b ->> 'k' FROM t WHERE c ILIKE '%x%'", "read", "read-only"),  # PG-isms
        ("SELECT /*+ INDEX(t) */ 1", "read", "read-only"),  # an optimizer hint is no /*!
    ],
)
def test_every_reading_counts_and_the_worst_wins(sql: str, risk: str, why: str) -> None:
    verdict = classify_sql(sql)
    assert verdict.risk == risk, verdict
    assert why.lower() in verdict.reason.lower(), verdict


@pytest.mark.parametrize(
    ("sql", "dialect", "risk"),
    [
        ("EXPLAIN (ANALYZE, BUFFERS) UPDATE t SET a = 1", "postgres", "write"),  # option list
        ("EXPLAIN (ANALYZE false) DELETE FROM t", "postgres", "read"),  # ANALYZE switched off
        ("EXPLAIN (FORMAT JSON) DELETE FROM t", "postgres", "read"),  # options, no ANALYZE
        ("SELECT * FROM t FOR UPDATE", "postgres", "write"),  # row locks
        ("REPLACE INTO t VALUES (1)", "mysql", "write"),  # MySQL's REPLACE
        (BRACKET, "postgres", "read"),  # PostgreSQL alone sees one statement ...
        (BRACKET, "sqlite", "delete"),  # ... SQLite sees the DELETE
        (BRACKET, "tsql", "delete"),  # ... and so does SQL Server
    ],
)
def test_one_dialects_reading(sql: str, dialect: str, risk: str) -> None:
    assert sql_risk(sql, dialect=dialect) == risk


def test_the_reason_names_the_engine_that_reads_more_into_the_text() -> None:
    assert classify_sql(BRACKET).reason == "DELETE statement (as SQLite reads the text)"


@pytest.mark.parametrize(
    ("backend", "dialect", "readings"),
    [
        ("postgresql", "postgres", CANDIDATE_DIALECTS),  # a candidate already: no new reading
        ("mssql", "tsql", CANDIDATE_DIALECTS),  # SQL Server is a candidate
        ("bigquery", "bigquery", (*CANDIDATE_DIALECTS, "bigquery")),  # its own dialect too
        ("clickhousedb", "clickhouse", (*CANDIDATE_DIALECTS, "clickhouse")),  # by Superset name
        ("no-such-engine", None, CANDIDATE_DIALECTS),  # unknown backend: the candidates
        (None, None, CANDIDATE_DIALECTS),  # backend not known: every candidate (safe default)
    ],
)
def test_the_backend_adds_its_own_dialect(
    backend: str | None, dialect: str | None, readings: tuple[str | None, ...]
) -> None:
    assert backend_dialect(backend) == dialect
    assert dialects_for(backend) == readings


def test_a_known_backend_reads_in_its_own_dialect_too() -> None:
    # BigQuery has no '' escape: its reading fails where every candidate reads one string
    sql = "SELECT * FROM t WHERE s = 'it''s'"
    assert classify_sql(sql).risk == "read"
    verdict = classify_sql(sql, backend="bigquery")
    assert verdict.risk == "delete" and "BigQuery" in verdict.reason


def test_a_text_over_the_token_budget_is_dangerous_without_being_parsed() -> None:
    sql = "SELECT " + "+".join(["1"] * (MAX_CLASSIFIED_TOKENS + 10))
    verdict = classify_sql(sql)
    assert verdict.risk == "delete" and "too long to classify" in verdict.reason


async def test_classifying_64_kb_off_the_loop_lets_other_coroutines_run() -> None:
    """A 64 KB ``SELECT 1+1+…`` classified through ``app.cpu.off_loop`` (the guard's path):
    a coroutine on the same loop keeps ticking while the parse runs."""
    sql = "SELECT " + "+".join(["1"] * 32_000) + f" -- {uuid.uuid4().hex}"  # not cached
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0)
            ticks += 1

    task = asyncio.create_task(ticker())
    try:
        verdict = await off_loop(classify_sql, sql)
    finally:
        task.cancel()
    assert verdict.risk == "delete"
    assert ticks >= 10  # on the loop itself the parse would allow none


# ---- property: a hidden second statement is never a read --------------------------------
PAYLOADS = st.sampled_from(
    ["DELETE FROM orders", "DROP TABLE orders", "UPDATE orders SET a = 1", "TRUNCATE orders",
     "INSERT INTO orders VALUES (1)", "delete from t where 1=1", "GRANT ALL ON t TO x"]
)  # fmt: skip
HEADS = st.sampled_from(["SELECT 1", "SELECT * FROM t", "select a, b from s.t", "SELECT 'x'"])
QUOTES = st.sampled_from(["'", '"', "`", "$$", "$q$"])
DIGITS = st.text(alphabet="0123456789", max_size=6)


@st.composite
def hidden(draw: st.DrawFn) -> str:
    """A read with a second statement hidden from some engine's reading."""
    head, payload, q = draw(HEADS), draw(PAYLOADS), draw(QUOTES)
    gap = draw(st.sampled_from([" ", "\n", "\t", "  "]))
    shapes = [
        f"{head}{gap}[{q}]; {payload}; --{q}]",  # brackets: SQLite / SQL Server
        f"{head}{gap}/*!{draw(DIGITS)} ; {payload} */",  # MySQL executable comment
        f"{head}{gap}/*M!{draw(DIGITS)} ; {payload} */",  # MariaDB executable comment
        f"{head}{gap}'\\'; {payload}; --'",  # backslash escapes: MySQL hides it
        f"{head}{gap}#{q}\n; {payload}; --{q}",  # '#' comments: MySQL shows it
        f"{head}{gap}/* /* */ ; {payload}; /* */ */",  # nested comments: PostgreSQL hides it
        f"{head}{gap}$$; {payload}; $$",  # dollar quotes
        f"{head}{gap}$t$; {payload}; $t$",  # tagged dollar quotes
        f"{head}{gap}E'\\'; {payload}; --'",  # E'' strings: PostgreSQL's backslash escapes
    ]
    return draw(st.sampled_from(shapes))


@settings(max_examples=300, deadline=None)
@given(hidden())
def test_a_hidden_second_statement_is_never_a_read(sql: str) -> None:
    assert sql_risk(sql) != "read", sql
