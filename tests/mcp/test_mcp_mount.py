"""The door as the product ships it: mounted in the same app over the installed agent
core, started and stopped with it, authenticating before anything else."""

from __future__ import annotations

from nicegui import app
from nicegui.testing import User

from app.mcp.core_gateway import CoreGateway
from app.mcp.http import DOOR_STATE, McpDoor
from app.parts import Parts
from app.store.audit_log import list_audit
from tests.agent.harness import token_for
from tests.mcp.support import bearer, initialize

LIST = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
INITIALIZE = initialize("2025-06-18", client="pytest")


async def test_mcp_without_a_token_is_401_and_audited(user: User, app_parts: Parts) -> None:
    r = await user.http_client.post("/mcp", json=LIST)
    assert r.status_code == 401
    assert r.json() == {"error": "unauthorized", "reason": "missing token"}
    with app_parts.db.session() as s:
        rows = list_audit(s, kind="auth_failed", limit=5)
    assert rows and rows[0].args == {"method": "POST", "path": "/mcp"}


async def test_mcp_with_a_token_answers_initialize_over_the_installed_core(
    user: User, app_parts: Parts
) -> None:
    headers = bearer(token_for(app_parts, "alice", "admin"))
    r = await user.http_client.post("/mcp", json=INITIALIZE, headers=headers)
    assert r.status_code == 200
    assert '"name":"ss-tools"' in r.text.replace(" ", "")
    door = getattr(app.state, DOOR_STATE)
    assert isinstance(door.gateway, CoreGateway)
    assert door.gateway.core is app_parts.core


async def test_the_session_manager_runs_with_the_app_and_restarts(user: User) -> None:
    door = getattr(app.state, DOOR_STATE)
    assert isinstance(door, McpDoor)
    assert [r for r in app.routes if getattr(r, "path", None) == "/mcp"]
    assert await door.wait_ready()
    await door.stop()
    assert not door.running
    await door.start()  # a manager runs once: a restart builds a fresh one
    assert door.running
