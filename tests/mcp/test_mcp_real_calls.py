"""The MCP door on the real core and the real Superset sandbox: the tool list per role (the
same set as ``GET /api/agent/tools``) with the declarations' schemas and annotations, a
read call with a real result, a forbidden call, and no token."""

from __future__ import annotations

import httpx
import pytest

from app.tools import TOOLS
from app.tools.catalog import TOOL_CATALOG
from tests.mcp.real_server import RealMcpServer
from tests.mcp.support import text_of
from tests.policy.test_catalog import DESIGN_TABLE

pytestmark = [pytest.mark.superset, pytest.mark.timeout(300)]


async def test_analyst_and_admin_see_the_http_apis_tool_list_with_annotations(
    real_mcp: RealMcpServer,
) -> None:
    async with real_mcp.client("ana") as c:
        analyst = {t.name: t for t in (await c.list_tools()).tools}
    async with real_mcp.client("ops") as c:
        admin = {t.name: t for t in (await c.list_tools()).tools}
    assert list(analyst) == real_mcp.tools_api("ana")
    assert list(admin) == real_mcp.tools_api("ops")
    # admin: every declared tool (the contract's 22 among them); analyst: those open to
    # analysts (the contract's 13)
    assert set(admin) == set(TOOLS) and set(DESIGN_TABLE) <= set(admin)
    assert set(analyst) == {n for n, spec in TOOL_CATALOG.items() if "analyst" in spec.roles}
    assert "deploy_dashboard" not in analyst and "delete_dashboard" in admin
    for name, tool in admin.items():
        decl = TOOLS[name].spec
        hints = tool.annotations
        assert hints is not None
        assert hints.read_only_hint == decl.read_only, name
        assert hints.destructive_hint == decl.destructive, name
        assert hints.idempotent_hint == decl.idempotent, name
        assert hints.open_world_hint == decl.open_world, name
        assert tool.input_schema["properties"] == (
            decl.args_model.model_json_schema().get("properties", {})
        ), name
    assert admin["delete_dashboard"].annotations.destructive_hint is True  # type: ignore[union-attr]
    assert admin["search_dashboards"].annotations.read_only_hint is True  # type: ignore[union-attr]
    assert set(admin["deploy_dashboard"].input_schema["required"]) == {
        "dashboard_id",
        "target_env",
    }
    assert "dashboard" in (admin["search_dashboards"].description or "").lower()


async def test_the_list_follows_the_callers_page_context(real_mcp: RealMcpServer) -> None:
    context = {"context": {"objectType": "dashboard", "objectId": "1", "envId": "dev"}}
    async with real_mcp.client("ana") as c:
        analyst = [t.name for t in (await c.list_tools(meta=context)).tools]
    async with real_mcp.client("ops") as c:
        admin = [t.name for t in (await c.list_tools(meta=context)).tools]
    assert len(analyst) == 5 and len(admin) == 9  # the contract's dashboard set
    assert "show_capabilities" in analyst and "delete_dashboard" not in admin


async def test_a_read_call_on_dev_returns_superset_dashboards_as_structured_content(
    real_mcp: RealMcpServer,
) -> None:
    async with real_mcp.client("ana", name="cursor-e2e") as c:
        result = await c.call_tool("search_dashboards", {"query": "", "env_id": "dev"})
    assert not result.is_error, text_of(result)
    data = result.structured_content
    assert data is not None and data["env"] == "dev"
    titles = {d["title"] for d in data["dashboards"]}
    assert {"Sales Overview", "Customer Health", "Marketing Funnel"} <= titles
    assert data["count"] == len(data["dashboards"])
    assert "Sales Overview" in text_of(result)
    rows = real_mcp.audit(user="ana", tool="search_dashboards", kind="executed")
    assert rows and rows[-1]["channel"] == "mcp" and rows[-1]["client"] == "cursor-e2e"
    assert rows[-1]["env"] == "dev"


async def test_an_analysts_admin_tool_is_permission_denied_with_alternatives(
    real_mcp: RealMcpServer,
) -> None:
    async with real_mcp.client("ana", name="cursor-e2e") as c:
        result = await c.call_tool(
            "deploy_dashboard", {"dashboard_id": "sales-overview", "target_env": "prod"}
        )
    assert result.is_error
    data = result.structured_content
    assert data is not None and data["error"] == "permission_denied"
    assert data["required_role"] == "admin" and data["tool"] == "deploy_dashboard"
    assert data["alternatives"] and all(
        {"action", "prompt"} <= set(a) for a in data["alternatives"]
    )
    assert text_of(result).startswith("permission_denied:")
    rows = real_mcp.audit(user="ana", tool="deploy_dashboard", kind="permission_denied")
    assert rows and rows[-1]["channel"] == "mcp" and rows[-1]["client"] == "cursor-e2e"
    assert not real_mcp.audit(user="ana", tool="deploy_dashboard", kind="confirm_requested")


def test_no_token_or_a_bad_one_is_401(real_mcp: RealMcpServer) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    r = httpx.post(real_mcp.url, json=body, timeout=30)
    assert r.status_code == 401
    assert r.json() == {"error": "unauthorized", "reason": "missing token"}
    bad = httpx.post(
        real_mcp.url, json=body, headers={"Authorization": "Bearer not-a-jwt"}, timeout=30
    )
    assert bad.status_code == 401 and bad.json()["error"] == "unauthorized"
