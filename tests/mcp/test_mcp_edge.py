"""The MCP door's edge: bearer auth on every request, sessions bound to their user, and
``tools/list`` per role and context with each tool's schema and annotations (the SDK's own
client against a product subprocess on the fake gateway)."""

from __future__ import annotations

import httpx
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from tests.mcp.conftest import FakeMcpServer
from tests.mcp.support import bearer, initialize

pytestmark = pytest.mark.timeout(120)


# ---- auth -------------------------------------------------------------------------------


def test_no_token_or_a_bad_one_is_a_plain_401(mcp_server: FakeMcpServer) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    r = httpx.post(mcp_server.url, json=body)
    assert r.status_code == 401
    assert r.json() == {"error": "unauthorized", "reason": "missing token"}
    assert r.headers["www-authenticate"] == "Bearer"
    bad = httpx.post(mcp_server.url, json=body, headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401 and bad.json()["error"] == "unauthorized"


async def test_sdk_client_with_a_bad_token_cannot_connect(mcp_server: FakeMcpServer) -> None:
    mark = mcp_server.mark()
    mcp_server.tokens["nobody"] = "not-a-token"
    with pytest.raises(ExceptionGroup) as info:  # the SDK's transport task group
        async with mcp_server.client("nobody"):
            pass
    assert info.group_contains(MCPError)
    assert mcp_server.log(mark) == []  # nothing reached the gateway


def test_a_session_is_bound_to_the_user_who_opened_it(mcp_server: FakeMcpServer) -> None:
    ops = bearer(mcp_server.tokens["ops"])
    r = httpx.post(mcp_server.url, json=initialize(), headers=ops)
    assert r.status_code == 200, r.text
    session = r.headers["mcp-session-id"]
    ana = bearer(mcp_server.tokens["ana"])
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    other = httpx.post(
        mcp_server.url,
        json=listing,
        headers={**ana, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"},
    )
    assert other.status_code == 404


# ---- tools/list ---------------------------------------------------------------------------


async def test_analyst_and_admin_see_their_tools_with_annotations(
    mcp_server: FakeMcpServer, mode: str
) -> None:
    async with mcp_server.client("ana", mode=mode) as c:
        analyst = {t.name: t for t in (await c.list_tools()).tools}
    async with mcp_server.client("ops", mode=mode) as c:
        admin = {t.name: t for t in (await c.list_tools()).tools}
    assert set(analyst) == {"search_dashboards", "get_health_summary"}
    assert set(admin) == set(analyst) | {
        "deploy_dashboard",
        "execute_migration",
        "delete_dashboard",
    }
    search = admin["search_dashboards"].annotations
    assert search is not None and search.read_only_hint and search.idempotent_hint
    assert search.destructive_hint is False and search.open_world_hint
    deploy = admin["deploy_dashboard"].annotations
    assert deploy is not None and not deploy.read_only_hint and deploy.destructive_hint is False
    delete = admin["delete_dashboard"].annotations
    assert delete is not None and delete.destructive_hint and not delete.read_only_hint
    schema = admin["deploy_dashboard"].input_schema
    assert schema["type"] == "object" and set(schema["required"]) == {"dashboard_id", "target_env"}
    assert admin["deploy_dashboard"].description == "deploy_dashboard (fake)"


async def test_list_follows_the_context_and_refuses_a_bad_one(
    mcp_server: FakeMcpServer, mode: str
) -> None:
    async with mcp_server.client("ops", mode=mode) as c:
        tools = await c.list_tools(meta={"context": {"objectType": "migration"}})
        assert [t.name for t in tools.tools] == ["execute_migration"]
        with pytest.raises(MCPError) as info:
            await c.list_tools(meta={"context": {"objectType": "chart"}})
    assert info.value.code == types.INVALID_PARAMS
    assert info.value.message.startswith("invalid_uicontext")
    assert info.value.data["status"] == 422


def test_initialize_with_an_invalid_session_context_is_refused(mcp_server: FakeMcpServer) -> None:
    init = initialize(capabilities={"experimental": {"context": {"envId": "bad id!"}}})
    headers = bearer(mcp_server.tokens["ops"])
    r = httpx.post(mcp_server.url, json=init, headers=headers)
    assert '"error"' in r.text and "invalid_uicontext" in r.text, r.text
    assert '"result"' not in r.text
    # the refused handshake leaves no usable session behind
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    session = {"mcp-session-id": r.headers.get("mcp-session-id", "none")}
    again = httpx.post(mcp_server.url, json=listing, headers={**headers, **session})
    assert "search_dashboards" not in again.text, again.text
