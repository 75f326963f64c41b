"""A hidden second statement, end to end over the HTTP API (``POST /api/agent/stream``): an
analyst's ``SELECT 1 [']; DELETE FROM orders; --']`` on prod — one SELECT to PostgreSQL and
MySQL, a SELECT and a DELETE to SQLite and SQL Server — used to run as a read with no card
(and, being a read, was retried on a 5xx). Now it is dangerous: a confirmation card,
nothing runs."""

from __future__ import annotations

from typing import Any

import pytest
from nicegui.testing import User

from app.events import decode_sse
from app.planner import OfflinePlanner
from tests.agent.harness import first, token_for, types_of
from tests.agent.scripted import call, recording_tools
from tests.support import served

HIDDEN = [
    "SELECT 1 [']; DELETE FROM orders; --']",  # the review's probe
    'SELECT 1 ["]; DELETE FROM orders; --"]',  # with a double quote
    "SELECT * FROM orders [']; DELETE FROM orders; --']",  # after FROM t
    "SELECT 1 /*M!100000 ; DELETE FROM orders */",  # MariaDB's executable comment (item 2)
]


async def _stream(user: User, message: str, conv_id: str) -> list[dict[str, Any]]:
    headers = {"Authorization": f"Bearer {token_for(served(), 'ana', 'analyst')}"}
    body = {"message": message, "conv_id": conv_id, "env_id": "prod"}
    r = await user.http_client.post("/api/agent/stream", json=body, headers=headers)
    assert r.status_code == 200, r.text
    return decode_sse(r.text)


def _asked_dangerous(events: list[dict[str, Any]], log: list[Any]) -> dict[str, Any]:
    kinds = types_of(events)
    assert "confirm_required" in kinds and "tool_start" not in kinds, kinds
    assert log == []  # nothing ran
    meta = first(events, "confirm_required")["metadata"]
    assert meta["tool_name"] == "superset_execute_sql" and meta["env_id"] == "prod"
    assert meta["dangerous"] is True and meta["risk_level"] == "dangerous"
    return meta


@pytest.mark.parametrize("sql", HIDDEN)
async def test_a_hidden_delete_on_prod_asks_a_dangerous_confirmation_over_http(
    user: User, harness: Any, sql: str
) -> None:
    log: list[Any] = []
    harness.use_proposal(call("superset_execute_sql", sql=sql, env_id="prod"), log)
    events = await _stream(user, f"run this sql on prod {sql}", "hidden-1")
    meta = _asked_dangerous(events, log)
    reason = meta["risk_reason"]
    assert "DELETE" in reason or "executable comment" in reason, reason


async def test_the_offline_planner_path_asks_too(user: User, harness: Any) -> None:
    """The product's own planner reads the SQL out of the message: the same card."""
    log: list[Any] = []
    harness.use(model=OfflinePlanner(), tools=recording_tools(log))
    events = await _stream(user, f"run this sql on prod: {HIDDEN[0]}", "hidden-2")
    meta = _asked_dangerous(events, log)
    assert "SQLite" in meta["risk_reason"]
