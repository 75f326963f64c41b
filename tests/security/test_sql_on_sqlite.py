"""SQL risk rows checked against a real SQLite: the sandbox's
databases are SQLite files, and SQLite reads ``[…]`` as an identifier, so a second
statement hidden behind a bracket from PostgreSQL's and MySQL's readings really runs.

Every row is classified by :func:`app.policy.classify_sql`, then run by SQLite itself
(``executescript``, which runs every statement of the text, as a multi-statement
executor does); a row rated dangerous shows the effect that makes the rating matter.
"""

from __future__ import annotations

import sqlite3

import pytest

from app.policy import classify_sql, sql_risk


def _orders() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.executescript(
        "CREATE TABLE orders (id INTEGER PRIMARY KEY, amount NUMERIC);"
        "INSERT INTO orders VALUES (1, 10), (2, 20), (3, 30);"
    )
    return conn


def _count(conn: sqlite3.Connection) -> int:
    return int(conn.execute("SELECT count(*) FROM orders").fetchone()[0])


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1 [']; DELETE FROM orders; --']",  # the review's probe
        'SELECT 1 ["]; DELETE FROM orders; --"]',  # a double quote inside the brackets
        "SELECT * FROM orders [']; DELETE FROM orders; --']",  # after a table name
    ],
)
def test_bracket_hidden_delete_is_dangerous_and_sqlite_really_runs_it(sql: str) -> None:
    for reader in ("postgres", "mysql"):  # the readings of today's classifier: one SELECT
        assert sql_risk(sql, dialect=reader) == "read"
    verdict = classify_sql(sql)
    assert verdict.risk == "delete" and "DELETE" in verdict.reason, verdict
    conn = _orders()
    conn.executescript(sql)
    assert _count(conn) == 0  # SQLite ran the DELETE


def test_a_comment_that_hides_it_from_everyone_stays_a_read_and_runs_nothing() -> None:
    sql = "SELECT 1 /* [']; DELETE FROM orders; --'] */"
    assert sql_risk(sql) == "read"
    conn = _orders()
    conn.executescript(sql)
    assert _count(conn) == 3
