"""sql_risk: SQL risk from the sqlglot parse tree, failing safe to delete."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.policy import DEFAULT_POLICY, sql_risk, worst
from app.policy import tool_risk as policy_tool_risk


def tool_risk(name: str, args: dict) -> str:
    return policy_tool_risk(name, args, policy=DEFAULT_POLICY)


@pytest.mark.parametrize(
    ("sql", "risk"),
    [
        ("SELECT 1", "read"),  # plain select
        ("select a, count(*) from t group by a", "read"),  # lower case, aggregate
        ("SELECT 1 UNION SELECT 2", "read"),  # set operation
        ("SELECT 1 INTERSECT SELECT 2", "read"),  # another set operation
        ("WITH a AS (SELECT 1) SELECT * FROM a", "read"),  # CTE feeding a select
        ("(SELECT 1)", "read"),  # parenthesised select
        ("EXPLAIN SELECT * FROM t", "read"),  # EXPLAIN (a sqlglot Command) is read
        ("EXPLAIN DELETE FROM t", "read"),  # plain EXPLAIN does not run the statement
        ("EXPLAIN ANALYZE DELETE FROM t", "delete"),  # EXPLAIN ANALYZE runs it
        # option list form: PostgreSQL's reading is write (see the PostgreSQL table), but
        # MySQL cannot parse it, and an unparsable reading is dangerous
        ("EXPLAIN (ANALYZE, BUFFERS) UPDATE t SET a = 1", "delete"),
        ("EXPLAIN /* x */ ANALYZE DELETE FROM t", "delete"),  # a comment cannot hide ANALYZE
        ("EXPLAIN/**/ANALYZE DELETE FROM t", "delete"),  # nor an empty comment
        ("EXPLAIN -- c\nANALYZE DELETE FROM t", "delete"),  # nor a line comment
        ("EXPLAIN (ANALYZE false) DELETE FROM t", "delete"),  # read in PostgreSQL; MySQL: no parse
        ("EXPLAIN (FORMAT JSON) DELETE FROM t", "delete"),  # read in PostgreSQL; MySQL: no parse
        ("EXPLAIN ANALYZE SELECT pg_sleep(1)", "delete"),  # the inner statement's functions count
        ("EXPLAIN SELECT pg_sleep(1)", "read"),  # … but only when EXPLAIN runs it
        ("SELECT pg_terminate_backend(pid) FROM pg_stat_activity", "delete"),  # side effect
        ("SELECT dblink_exec('x', 'DROP TABLE orders')", "delete"),  # SQL on another connection
        ("SELECT lo_unlink(1)", "delete"),  # large objects
        ("SELECT set_config('a.b', 'c', false)", "delete"),  # changes a setting
        ("SELECT pg_read_file('/etc/passwd')", "delete"),  # reads a server file
        ("SELECT nextval('s')", "delete"),  # moves a sequence (not undone by ROLLBACK)
        ("SELECT pg_catalog.pg_sleep(1)", "delete"),  # schema-qualified
        ('SELECT "pg_sleep"(1)', "delete"),  # quoted name
        ("SELECT * FROM dblink('a', 'b') AS x(a int)", "delete"),  # table function
        ("SELECT my_udf(1)", "write"),  # unknown function: may write
        ("SELECT count(*), upper(a), a::int, coalesce(a, 1), now() FROM t", "read"),  # pure
        ("SELECT date_trunc('month', ts), sum(x) FROM t GROUP BY 1", "read"),  # date + aggregate
        ("SELECT * FROM t FOR UPDATE", "delete"),  # row locks (write); SQL Server: no parse
        ("SELECT 1 /*!50000 INTO OUTFILE '/tmp/x' */", "delete"),  # MySQL executable comment
        ("SELECT /*+ INDEX(t) */ 1", "read"),  # an optimizer hint runs nothing
        ("SHOW TABLES", "read"),  # SHOW (a Command in the generic dialect)
        ("DESCRIBE t", "read"),  # DESCRIBE
        ("/* why */ SELECT 1 -- trailing", "read"),  # comments around a select
        ("SELECT 1 -- ; DROP TABLE t", "read"),  # DROP inside a comment is not a statement
        ("SELECT ';DROP TABLE t'", "read"),  # DROP inside a string literal is data
        ("SELECT * INTO t2 FROM t", "write"),  # SELECT … INTO creates a table
        ("INSERT INTO t VALUES (1)", "write"),  # DML
        ("UPDATE t SET a = 1", "write"),  # DML
        ("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN UPDATE SET a = 1", "write"),
        ("CREATE TABLE t2 AS SELECT 1", "write"),  # CTAS
        ("CREATE OR REPLACE VIEW v AS SELECT 1", "write"),  # OR REPLACE is still write
        ("REPLACE INTO t VALUES (1)", "delete"),  # MySQL's REPLACE; others cannot parse it
        ("COPY t FROM STDIN", "write"),  # COPY from the client loads data
        ("COPY t FROM '/tmp/x.csv'", "delete"),  # COPY from a server file reads the server's disk
        ("COPY t TO PROGRAM 'rm -rf /'", "delete"),  # COPY … PROGRAM runs a shell command
        ("DELETE FROM t WHERE id = 1", "delete"),  # DELETE
        ("DROP TABLE t", "delete"),  # DROP
        ("TRUNCATE t", "delete"),  # TRUNCATE
        ("ALTER TABLE t ADD COLUMN c INT", "delete"),  # ALTER counts as delete
        ("WITH x AS (SELECT 1) DELETE FROM t", "delete"),  # WITH … DELETE
        ("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", "delete"),  # modifying CTE
        ("WITH i AS (INSERT INTO t VALUES (1) RETURNING *) SELECT * FROM i", "write"),
        ("SELECT 1; DROP TABLE t", "delete"),  # several statements → the worst
        ("SELECT 1; INSERT INTO t VALUES (1); SELECT 2", "write"),  # worst in the middle
        ("SELECT 1;", "read"),  # a trailing semicolon is fine
        ("GRANT SELECT ON t TO bob", "delete"),  # privilege changes are dangerous
        ("VACUUM", "delete"),  # a command we do not know → fail safe
        ("CALL cleanup()", "delete"),  # procedures may do anything
        ("DO $$ BEGIN DELETE FROM t; END $$", "delete"),  # anonymous block
        ("garbage here ((", "delete"),  # unparsable
        ("", "delete"),  # empty
        ("   \n\t", "delete"),  # blank
        ("-- only a comment", "delete"),  # nothing to run
        (";", "delete"),  # an empty statement
        (None, "delete"),  # missing
    ],
)
def test_sql_risk_table(sql: str | None, risk: str):
    assert sql_risk(sql) == risk


def test_deeply_nested_explain_is_dangerous_not_an_error():
    assert sql_risk("EXPLAIN ANALYZE " * 300 + "SELECT 1") == "delete"


def test_tool_risk_parses_sql_only_for_execute_sql():
    assert tool_risk("superset_execute_sql", {"sql": "SELECT 1"}) == "read"
    assert tool_risk("superset_execute_sql", {"sql": "DROP TABLE t"}) == "delete"
    assert tool_risk("superset_execute_sql", {}) == "delete"
    # other tools keep the catalog's risk whatever their args say
    assert tool_risk("superset_format_sql", {"sql": "DROP TABLE t"}) == "read"
    assert tool_risk("restore_backup", {"backup_id": "b"}) == "delete"


def test_worst_orders_read_write_delete():
    assert worst("read", "write") == "write"
    assert worst("delete", "read", "write") == "delete"
    assert worst("read") == "read"


SQL_WORDS = st.sampled_from(
    [
        "SELECT",
        "FROM",
        "DELETE",
        "DROP",
        "(",
        ")",
        ";",
        "'",
        '"',
        "--",
        "/*",
        "*/",
        "WITH",
        "AS",
        "EXPLAIN",
        "ANALYZE",
        "INTO",
        "t",
        "1",
        "$$",
        "`",
        "::",
        "\n",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.one_of(st.text(), st.lists(SQL_WORDS).map(" ".join)))
def test_sql_risk_never_raises(sql: str):
    assert sql_risk(sql) in ("read", "write", "delete")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["SELECT 1", "UPDATE t SET a=1", "DROP TABLE t"]), min_size=1))
def test_several_statements_take_the_worst(statements: list[str]):
    expected = worst(*(sql_risk(s) for s in statements))
    assert sql_risk("; ".join(statements)) == expected
