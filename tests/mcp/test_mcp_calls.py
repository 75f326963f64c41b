"""``tools/call`` through the MCP door: structured results, the page-like context, and
forbidden calls (the SDK's own client against a product subprocess on the fake gateway)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.mcp.conftest import FakeMcpServer
from tests.mcp.support import Person, ops, text_of

pytestmark = pytest.mark.timeout(120)


async def test_read_call_answers_structured_content_and_text(
    mcp_server: FakeMcpServer, mode: str
) -> None:
    mark = mcp_server.mark()
    async with mcp_server.client("ana", mode=mode, name="cursor-test") as c:
        result = await c.call_tool("search_dashboards", {"query": "sales", "env_id": "dev"})
    assert not result.is_error
    assert result.structured_content["items"] == [{"id": 1, "title": "Sales"}]
    assert result.structured_content["env"] == "dev"
    assert '"Sales"' in text_of(result)
    calls = ops(mcp_server.log(mark), "call")
    assert calls[0]["channel"] == "mcp" and calls[0]["client"] == "cursor-test"
    assert calls[0]["user"] == "ana" and calls[0]["conv_id"].startswith("mcp-")


async def test_context_travels_per_call_and_never_reaches_the_tool_arguments(
    mcp_server: FakeMcpServer,
) -> None:
    mark = mcp_server.mark()
    ctx = {"objectType": "dashboard", "objectId": "42", "envId": "prod"}
    async with mcp_server.client("ana") as c:
        by_arg = await c.call_tool("get_health_summary", {"dashboard_id": "42", "context": ctx})
        by_meta = await c.call_tool(
            "get_health_summary", {"dashboard_id": "7"}, meta={"context": ctx}
        )
    assert not by_arg.is_error and not by_meta.is_error
    calls = ops(mcp_server.log(mark), "call")
    assert [c["args"] for c in calls] == [{"dashboard_id": "42"}, {"dashboard_id": "7"}]
    assert all(c["context"] == {**ctx, "contextVersion": 1} for c in calls)
    assert by_arg.structured_content["env"] == "prod"


@pytest.mark.parametrize(
    ("context", "status"),
    [
        ({"objectType": "chart"}, 422),  # not one of dashboard | dataset | migration
        ({"objectName": "x" * 5000}, 413),  # the whole payload is over 4 KB
        ("dashboard", 422),  # not an object
    ],
)
async def test_invalid_call_context_is_a_clear_tool_error(
    mcp_server: FakeMcpServer, context: Any, status: int
) -> None:
    async with mcp_server.client("ana") as c:
        result = await c.call_tool("search_dashboards", {"context": context})
    assert result.is_error
    assert result.structured_content["error"] == "invalid_uicontext"
    assert result.structured_content["status"] == status


async def test_analyst_calling_an_admin_tool_gets_permission_denied(
    mcp_server: FakeMcpServer,
) -> None:
    person = Person("accept")
    async with mcp_server.client("ana", elicit=person) as c:
        result = await c.call_tool("delete_dashboard", {"dashboard_id": "42", "env_id": "prod"})
    assert result.is_error
    s = result.structured_content
    assert s["error"] == "permission_denied" and s["required_role"] == "admin"
    assert s["alternatives"] == [
        {"action": "search_dashboards", "prompt": "Find the dashboard instead"}
    ]
    assert "permission_denied" in text_of(result) and "admin" in text_of(result)
    assert person.asked == []  # a forbidden call is never a confirmation
