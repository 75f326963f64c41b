"""Templated SQL and a virtual dataset's SQL on the real product (``python main.py``) and
the real Superset sandbox's prod, through the MCP door, as analyst ``ana``:

* ``SELECT … -- {{ '\\n' }}; DELETE FROM sales`` — a DELETE once Superset renders it with
  template processing on — is a DANGEROUS card that says "templated SQL"; an accept
  before the countdown is refused and asked again, a decline cancels it, and Superset's
  own query history shows it never reached SQL Lab (a plain read of the same marker,
  run next, does: the check can see a query that ran);
* a virtual dataset with ``pg_terminate_backend()`` is a DANGEROUS card that says its SQL
  runs on every chart render, and declined, no dataset of that name exists on prod.
"""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from app.i18n import t
from app.sandbox import Sandbox
from app.sandbox.superset_rest import SupersetSession
from tests.mcp.real_server import REAL_COUNTDOWN_S, RealMcpServer
from tests.mcp.support import Person, text_of

pytestmark = [pytest.mark.superset, pytest.mark.timeout(300)]


def _on_prod(sandbox: Sandbox, path: str, q: str) -> list[dict[str, Any]]:
    inst = sandbox.env("prod")
    with SupersetSession(inst.url, inst.username, inst.password) as ss:
        return list(ss.call("GET", path, params={"q": q}).get("result") or [])


def _queries_holding(sandbox: Sandbox, marker: str) -> list[dict[str, Any]]:
    """SQL Lab's query history on prod: the queries whose text holds ``marker``."""
    q = f"(filters:!((col:sql,opr:ct,value:'{marker}')),columns:!(id,sql,status),page_size:100)"
    return _on_prod(sandbox, "/api/v1/query/", q)


def _kinds(rows: list[dict[str, Any]]) -> list[Any]:
    return [r["kind"] for r in rows]


async def test_an_analysts_templated_delete_on_prod_waits_for_the_countdown_and_never_runs(
    real_mcp: RealMcpServer, superset_sandbox: Sandbox
) -> None:
    marker = f"probe_{uuid.uuid4().hex[:10]}"
    sql = f"SELECT 1 AS {marker} -- {{{{ '\\n' }}}}; DELETE FROM sales"
    person = Person("accept", "decline")  # too early, then a decline
    async with real_mcp.client("ana", elicit=person, name="claude-e2e") as c:
        result = await c.call_tool("superset_execute_sql", {"sql": sql, "env_id": "prod"})
    assert len(person.asked) == 2
    card = person.asked[0].message
    for fact in (
        "DANGEROUS — Confirm superset_execute_sql?",
        "prod (tier prod) — PRODUCTION",
        f"Why: {t('sql_templated', 'en')}",
        f"accepted only {REAL_COUNTDOWN_S} s after",
    ):
        assert fact in card, card
    assert person.asked[1].message.startswith("Not yet:"), person.asked[1].message
    assert not result.is_error and result.structured_content["status"] == "cancelled"  # type: ignore[index]
    conv = real_mcp.audit(user="ana", tool="superset_execute_sql", kind="confirm_requested")
    rows = real_mcp.audit(conv_id=conv[-1]["conv_id"])
    assert "executed" not in _kinds(rows) and "confirmed" not in _kinds(rows)
    assert [r["reason"][:9] for r in rows if r["kind"] == "confirmation_refused"] == ["too_early"]
    assert _queries_holding(superset_sandbox, marker) == []  # it never reached SQL Lab
    # the same marker in a plain read runs at once (no card), and the history shows it
    async with real_mcp.client("ana", name="claude-e2e") as c:
        read = await c.call_tool(
            "superset_execute_sql", {"sql": f"SELECT 1 AS {marker}", "env_id": "prod"}
        )
    assert not read.is_error, text_of(read)
    assert [q["status"] for q in _queries_holding(superset_sandbox, marker)] == ["success"]


async def test_a_dataset_with_a_side_effect_function_is_dangerous_and_declined_is_not_made(
    real_mcp: RealMcpServer, superset_sandbox: Sandbox
) -> None:
    name = f"killer_{uuid.uuid4().hex[:8]}"
    args = {
        "database": "Sales",
        "table_name": name,
        "sql": "SELECT pg_terminate_backend(1)",
        "env_id": "prod",
    }
    person = Person("decline")
    async with real_mcp.client("ana", elicit=person, name="claude-e2e") as c:
        result = await c.call_tool("superset_create_dataset", args)
    assert len(person.asked) == 1
    card = person.asked[0].message
    assert "DANGEROUS — Confirm superset_create_dataset?" in card, card
    assert "Why: a virtual dataset's SQL runs again on every chart render" in card, card
    assert "pg_terminate_backend" in card
    assert result.structured_content["status"] == "cancelled", text_of(result)  # type: ignore[index]
    q = f"(filters:!((col:table_name,opr:eq,value:'{name}')),columns:!(id))"
    assert _on_prod(superset_sandbox, "/api/v1/dataset/", q) == []
