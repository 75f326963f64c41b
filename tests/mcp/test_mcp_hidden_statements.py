"""A hidden second statement, end to end over MCP: ``tools/call superset_execute_sql`` with
a DELETE hidden behind a bracket (``SELECT 1 [']; DELETE FROM orders; --']``) on prod,
through the door as the product mounts it (``/mcp`` over the installed core, the real
guard; the tools are recorders). It used to run as a read; now it is a dangerous
confirmation, and a client without forms gets "Not run" with the confirmation id."""

from __future__ import annotations

from typing import Any

import pytest
from nicegui import app
from nicegui.testing import User

from app.mcp.core_gateway import CoreGateway
from app.mcp.http import DOOR_STATE
from tests.agent.harness import token_for
from tests.agent.scripted import recording_tools
from tests.mcp.support import open_session, tools_call
from tests.support import served

HIDDEN = [
    "SELECT 1 [']; DELETE FROM orders; --']",  # SQLite and SQL Server run the DELETE
    'SELECT * FROM orders ["]; DROP TABLE orders; --"]',  # a DROP, after a table name
    "SELECT 1 /*M!100000 ; DELETE FROM orders */",  # MariaDB runs its executable comment
]


@pytest.mark.parametrize("sql", HIDDEN)
async def test_a_hidden_statement_on_prod_is_a_dangerous_confirmation_over_mcp(
    user: User, harness: Any, sql: str
) -> None:
    log: list[Any] = []
    harness.use(tools=recording_tools(log))
    door = getattr(app.state, DOOR_STATE)
    door.gateway = CoreGateway(harness.core)  # the door serves the test's core
    assert await door.wait_ready()
    http = user.http_client
    headers = await open_session(http, token_for(served(), "ana", "analyst"), client="pytest")
    arguments = {"sql": sql, "env_id": "prod"}
    result = await tools_call(http, headers, "superset_execute_sql", arguments)
    assert not result.get("isError"), result
    s = result["structuredContent"]
    assert s["status"] == "confirmation_required", s
    assert s["risk_level"] == "dangerous" and s["env_id"] == "prod"
    text = " ".join(c["text"] for c in result["content"] if c["type"] == "text")
    assert text.startswith("Not run") and s["confirmation_id"] in text
    assert log == []  # nothing ran
    rows = harness.audit_rows(kind="confirm_requested", user="ana")
    assert rows and rows[0]["reason"] == "dangerous" and rows[0]["channel"] == "mcp"
    assert not harness.audit_rows(kind="executed", user="ana")
