"""A virtual dataset's SQL is rated: Superset runs it again on every render of every chart
on the dataset, so ``superset_create_dataset`` carries at least the risk its SQL has in
SQL Lab, and the card says why (it used to be "guarded" whatever the SQL did)."""

from __future__ import annotations

import pytest

from app.policy import DEFAULT_POLICY, build_confirmation_contract_v2, tool_risk

DATASET = {"database": "Sales", "table_name": "by_region"}
RENDER = "a virtual dataset's SQL runs again on every chart render"


def card(tool: str, args: dict[str, object], lang: str = "en") -> dict[str, object]:
    return build_confirmation_contract_v2(
        tool, args, "analyst", "prod", policy=DEFAULT_POLICY, lang=lang
    )


@pytest.mark.parametrize(
    ("sql", "risk", "why"),
    [
        (None, "write", None),  # a physical table: the tool's own risk, no SQL to rate
        ("", "write", None),  # an empty text is sent as a physical table too
        ("SELECT region, sum(amount) FROM sales GROUP BY 1", "write", "read-only query"),
        # the review's probe: dangerous in SQL Lab, so dangerous as a dataset
        ("SELECT pg_terminate_backend(pid) FROM pg_stat_activity", "delete", "pg_terminate"),
        ("DELETE FROM sales", "delete", "DELETE"),  # a delete on every render
        # DML: a write in SQL Lab, repeated on every render → dangerous
        ("INSERT INTO audit_log VALUES (1)", "delete", "INSERT"),
        ("UPDATE sales SET amount = 0", "delete", "UPDATE"),
        ("WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d", "delete", "DELETE"),
        ("SELECT my_udf(amount) FROM sales", "delete", "my_udf"),  # may write, every render
        ("SELECT * FROM sales WHERE d = '{{ ds }}'", "delete", "templated SQL"),  # Jinja
        ("SELECT 1 [']; DELETE FROM sales; --']", "delete", "DELETE"),  # hidden from some
        ("   ", "delete", "no SQL statement"),  # a blank text is no query
    ],
)
def test_a_datasets_card_carries_its_sqls_risk_and_says_why(
    sql: str | None, risk: str, why: str | None
) -> None:
    args = {**DATASET, **({} if sql is None else {"sql": sql})}
    assert tool_risk("superset_create_dataset", args, policy=DEFAULT_POLICY) == risk
    meta = card("superset_create_dataset", args)
    assert meta["risk"] == risk and meta["dangerous"] is (risk == "delete")
    assert meta["requires_confirmation"] is True  # a dataset is created either way
    if why is None:
        assert meta["risk_reason"] is None
    else:
        reason = str(meta["risk_reason"])
        assert reason.startswith(RENDER) and why in reason, reason


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1",
        "SELECT pg_sleep(5)",
        "SELECT nextval('s')",
        "INSERT INTO t VALUES (1)",
        "DROP TABLE t",
        "SELECT * FROM t FOR UPDATE",
        "SELECT '{{ x }}'",
        "EXPLAIN ANALYZE DELETE FROM t",
    ],
)
def test_a_dataset_is_never_rated_below_the_same_sql_in_sql_lab(sql: str) -> None:
    order = {"read": 0, "write": 1, "delete": 2}
    lab = tool_risk("superset_execute_sql", {"sql": sql}, policy=DEFAULT_POLICY)
    dataset = tool_risk("superset_create_dataset", {**DATASET, "sql": sql}, policy=DEFAULT_POLICY)
    assert order[dataset] >= max(order[lab], order["write"]), (sql, lab, dataset)


def test_the_datasets_reason_is_in_the_cards_language() -> None:
    args = {**DATASET, "sql": "SELECT pg_terminate_backend(1)"}
    reason = str(card("superset_create_dataset", args, lang="ru")["risk_reason"])
    assert reason.startswith("SQL виртуального датасета") and "pg_terminate_backend" in reason
