"""The door as the product ships it today (no gateway handed in): mounted in the same
app, started and stopped with it, authenticating before anything else."""

from __future__ import annotations

from nicegui import app
from nicegui.testing import User

from app.mcp.http import DOOR_STATE, McpDoor
from app.store.audit import list_audit
from app.store.db import session_scope
from tests.agent.harness import token_for

LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}


async def test_mcp_without_a_token_is_401_and_audited(user: User) -> None:
    r = await user.http_client.post("/mcp", json=LIST)
    assert r.status_code == 401
    assert r.json() == {"error": "unauthorized", "reason": "missing token"}
    with session_scope() as s:
        rows = list_audit(s, kind="auth_failed", limit=5)
    assert rows and rows[0].args == {"method": "POST", "path": "/mcp"}


async def test_mcp_with_a_token_but_no_gateway_is_503(user: User) -> None:
    headers = {"Authorization": f"Bearer {token_for('alice', 'admin')}"}
    r = await user.http_client.post("/mcp", json=LIST, headers=headers)
    assert r.status_code == 503
    assert r.json()["error"] == "mcp_unavailable"


async def test_the_session_manager_runs_with_the_app_and_restarts(user: User) -> None:
    door = getattr(app.state, DOOR_STATE)
    assert isinstance(door, McpDoor)
    assert [r for r in app.routes if getattr(r, "path", None) == "/mcp"]
    assert await door.wait_ready()
    await door.stop()
    assert not door.running
    await door.start()  # a manager runs once: a restart builds a fresh one
    assert door.running
