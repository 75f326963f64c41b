"""SQL risk rows checked against a real PostgreSQL (tests/security/README.md, rows 1, 4, 5).

Every row is classified by :func:`app.policy.classify_sql`, then run on the suite's
throwaway PostgreSQL inside a transaction that is rolled back. A row rated ``read`` must
leave everything as it was (rows, sequence values, settings, advisory locks, large
objects) both inside the transaction and after it; a row rated dangerous shows the effect
that makes the rating matter (EXPLAIN ANALYZE DELETE really empties the table,
``nextval`` moves a sequence even through ROLLBACK, ``pg_terminate_backend`` ends a
session …).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from app.policy import classify_sql

pytestmark = pytest.mark.postgres

SETUP = """
DROP TABLE IF EXISTS orders;
DROP SEQUENCE IF EXISTS order_seq;
CREATE TABLE orders (id int PRIMARY KEY, amount numeric NOT NULL);
INSERT INTO orders SELECT g, g * 10 FROM generate_series(1, 5) g;
CREATE SEQUENCE order_seq;
CREATE EXTENSION IF NOT EXISTS dblink;
"""

# (sql, expected risk, a phrase of the reason, what PostgreSQL does with it)
ROWS = [
    # --- EXPLAIN: the options are read without comments ---------------------------------
    ("EXPLAIN DELETE FROM orders", "read", "without ANALYZE", "unchanged"),  # plan only
    ("EXPLAIN /* x */ ANALYZE DELETE FROM orders", "delete", "EXPLAIN ANALYZE", "empties"),
    ("EXPLAIN/**/ANALYZE DELETE FROM orders", "delete", "EXPLAIN ANALYZE", "empties"),
    ("EXPLAIN -- c\nANALYZE DELETE FROM orders", "delete", "EXPLAIN ANALYZE", "empties"),
    ("EXPLAIN (ANALYZE, COSTS off) DELETE FROM orders", "delete", "DELETE", "empties"),
    # PostgreSQL runs nothing, but MySQL cannot parse it: a failed reading is dangerous
    ("EXPLAIN (ANALYZE false) DELETE FROM orders", "delete", "parsed as MySQL", "unchanged"),
    ("EXPLAIN ANALYZE SELECT * FROM orders", "read", "EXPLAIN ANALYZE", "unchanged"),
    # a data-modifying CTE and a statement after a backslash-ended string (PostgreSQL's
    # standard strings): the worst reading wins
    ("WITH d AS (DELETE FROM orders RETURNING *) SELECT count(*) FROM d", "delete", "DELETE",
     "empties"),
    ("SELECT '\\'; DELETE FROM orders; -- '", "delete", "DELETE", "empties"),
    # --- functions with side effects ------------------------------------------------------
    ("SELECT nextval('order_seq')", "delete", "nextval", "sequence_moves"),
    ("SELECT set_config('ss.probe', 'on', false)", "delete", "set_config", "setting_changes"),
    ("SELECT pg_advisory_lock(4242)", "delete", "pg_advisory_lock", "advisory_lock"),
    ("SELECT lo_create(0)", "delete", "lo_create", "large_object"),
    ("SELECT pg_read_file('PG_VERSION')", "delete", "pg_read_file", "reads_server_file"),
    ("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
     "WHERE application_name = 'ss-probe-victim'", "delete", "pg_terminate_backend",
     "ends_session"),
    ("SELECT dblink_exec('host=127.0.0.1 user=postgres port=' || current_setting('port') || "
     "' dbname=' || current_database(), 'DELETE FROM orders')", "delete", "dblink_exec",
     "dblink_deletes"),
    ("SELECT pg_sleep(0.3)", "delete", "pg_sleep", "sleeps"),
    ("SELECT * FROM orders FOR UPDATE", "delete", "SQL Server", "locks_rows"),  # T-SQL: no parse
    # --- MySQL executable comment: a comment to PostgreSQL, SQL to MySQL -------------------
    ("SELECT 1 /*!50000 INTO OUTFILE '/tmp/x' */", "delete", "executable comment", "unchanged"),
    # --- reads: pure functions, set operations, catalog lookups ----------------------------
    ("SELECT count(*), sum(amount), upper('a'), '1'::int, coalesce(NULL, 1), now(), "
     "date_trunc('day', now()), round(avg(amount), 2) FROM orders", "read", "read-only",
     "unchanged"),
    ("WITH a AS (SELECT id FROM orders) SELECT * FROM a UNION SELECT 9", "read", "read-only",
     "unchanged"),
    ("SELECT current_setting('server_version'), version(), pg_size_pretty(1024::bigint)", "read",
     "read-only", "unchanged"),
    ("SELECT /*+ SeqScan(orders) */ id FROM orders", "read", "read-only", "unchanged"),
    ("SHOW server_version", "read", "SHOW", "unchanged"),
    ("VALUES (1), (2)", "delete", "parsed as MySQL", "unchanged"),  # MySQL: no parse
]  # fmt: skip


def _plain(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


@pytest.fixture
def pg(pg_url: str) -> Iterator[psycopg.Connection[Any]]:
    with psycopg.connect(_plain(pg_url), autocommit=True) as conn:
        conn.execute(SETUP)
        conn.execute("SET statement_timeout = '10s'")
        yield conn
        conn.execute("SELECT pg_advisory_unlock_all()")
        conn.execute("DROP TABLE IF EXISTS orders; DROP SEQUENCE IF EXISTS order_seq")


def state(conn: psycopg.Connection[Any]) -> dict[str, Any]:
    """Everything a read must not change."""
    row = conn.execute(
        "SELECT (SELECT count(*) FROM orders), (SELECT sum(amount) FROM orders),"
        " (SELECT last_value::text || is_called::text FROM order_seq),"
        " current_setting('ss.probe', true),"
        " (SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'),"
        " (SELECT count(*) FROM pg_largeobject_metadata)"
    ).fetchone()
    assert row is not None
    keys = ("rows", "amount", "sequence", "setting", "advisory_locks", "large_objects")
    return dict(zip(keys, row, strict=True))


def run_in_rolled_back_transaction(
    conn: psycopg.Connection[Any], sql: str
) -> tuple[dict[str, Any], list[Any]]:
    """Run ``sql``; return the state seen inside the transaction and the rows it gave."""
    with conn.transaction(force_rollback=True):
        cur = conn.execute(sql)  # type: ignore[call-overload]
        rows = cur.fetchall() if cur.description else []
        inside = state(conn)
    return inside, rows


@pytest.mark.parametrize(("sql", "risk", "why", "effect"), ROWS)
def test_sql_rating_matches_what_postgres_does(pg, pg_url, sql, risk, why, effect) -> None:
    verdict = classify_sql(sql)
    assert verdict.risk == risk, verdict
    assert why.lower() in verdict.reason.lower(), verdict
    before = state(pg)
    victim = None
    if effect == "ends_session":
        victim = psycopg.connect(_plain(pg_url), application_name="ss-probe-victim")
    other = psycopg.connect(_plain(pg_url), autocommit=True) if effect == "locks_rows" else None
    try:
        if effect == "locks_rows":
            with pg.transaction(force_rollback=True):
                pg.execute(sql)  # type: ignore[call-overload]
                assert other is not None
                with pytest.raises(psycopg.errors.LockNotAvailable):
                    other.execute("SELECT * FROM orders FOR UPDATE NOWAIT")
            return
        inside, rows = run_in_rolled_back_transaction(pg, sql)
        after = state(pg)
        check_effect(effect, before, inside, after, rows, victim)
    finally:
        for conn in (victim, other):
            if conn is not None:
                conn.close()


def check_effect(
    effect: str,
    before: dict[str, Any],
    inside: dict[str, Any],
    after: dict[str, Any],
    rows: list[Any],
    victim: psycopg.Connection[Any] | None,
) -> None:
    match effect:
        case "unchanged" | "sleeps":  # a read: nothing moved, inside or after
            assert inside == before and after == before
        case "empties":  # the table really was emptied by the statement
            assert before["rows"] == 5 and inside["rows"] == 0
        case "sequence_moves":  # and ROLLBACK does not undo it
            assert after["sequence"] != before["sequence"]
        case "setting_changes":
            assert inside["setting"] == "on" and before["setting"] in (None, "")
        case "advisory_lock":  # a session lock outlives the transaction
            assert after["advisory_locks"] > before["advisory_locks"]
        case "large_object":
            assert inside["large_objects"] > before["large_objects"]
        case "reads_server_file":  # the server's own file, read through SQL
            assert rows and str(rows[0][0]).strip().isdigit()
        case "ends_session":
            assert rows == [(True,)] and victim is not None
            with pytest.raises(psycopg.OperationalError):
                victim.execute("SELECT 1")
        case "dblink_deletes":  # another connection deleted and committed: no rollback helps
            assert after["rows"] == 0
        case _:
            raise AssertionError(f"unknown effect {effect}")
