"""The MCP door end to end: the SDK's own client over HTTP against a product subprocess
whose door runs on the fake gateway (phase 1). Each flow runs on both wires the SDK
speaks: the initialize handshake (elicitation sent on the call's stream) and 2026-07-28
(elicitation as an InputRequiredResult the client answers by retrying)."""

from __future__ import annotations

import time
from typing import Any

import anyio
import httpx
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from tests.mcp.conftest import COUNTDOWN_S, ERAS, FakeMcpServer

pytestmark = pytest.mark.timeout(120)


class Person:
    """An elicitation callback answering from a script, keeping what it was shown."""

    def __init__(self, *answers: Any, wait_s: float = 0.0) -> None:
        self.answers = list(answers)
        self.wait_s = wait_s
        self.asked: list[types.ElicitRequestFormParams] = []

    async def __call__(self, ctx: Any, params: Any) -> types.ElicitResult | types.ErrorData:
        self.asked.append(params)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        if isinstance(answer, types.ErrorData):
            return answer
        action, reason = answer if isinstance(answer, tuple) else (answer, None)
        if len(self.asked) > 1 and self.wait_s:
            await anyio.sleep(self.wait_s)
        content = {"reason": reason} if action == "accept" and reason else None
        return types.ElicitResult(action=action, content=content)


def _text(result: types.CallToolResult) -> str:
    return " ".join(c.text for c in result.content if isinstance(c, types.TextContent))


def _ops(rows: list[dict[str, Any]], op: str) -> list[dict[str, Any]]:
    return [r for r in rows if r["op"] == op]


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
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    accept = {"Accept": "application/json, text/event-stream"}
    ops = {"Authorization": f"Bearer {mcp_server.tokens['ops']}", **accept}
    r = httpx.post(mcp_server.url, json=init, headers=ops)
    assert r.status_code == 200, r.text
    session = r.headers["mcp-session-id"]
    ana = {"Authorization": f"Bearer {mcp_server.tokens['ana']}", **accept}
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    other = httpx.post(
        mcp_server.url,
        json=listing,
        headers={**ana, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25"},
    )
    assert other.status_code == 404


# ---- tools/list ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ERAS)
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


@pytest.mark.parametrize("mode", ERAS)
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
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"experimental": {"context": {"envId": "bad id!"}}},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
    headers = {
        "Authorization": f"Bearer {mcp_server.tokens['ops']}",
        "Accept": "application/json, text/event-stream",
    }
    r = httpx.post(mcp_server.url, json=init, headers=headers)
    assert '"error"' in r.text and "invalid_uicontext" in r.text, r.text
    assert '"result"' not in r.text
    # the refused handshake leaves no usable session behind
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    session = {"mcp-session-id": r.headers.get("mcp-session-id", "none")}
    again = httpx.post(mcp_server.url, json=listing, headers={**headers, **session})
    assert "search_dashboards" not in again.text, again.text


# ---- tools/call -------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ERAS)
async def test_read_call_answers_structured_content_and_text(
    mcp_server: FakeMcpServer, mode: str
) -> None:
    mark = mcp_server.mark()
    async with mcp_server.client("ana", mode=mode, name="cursor-test") as c:
        result = await c.call_tool("search_dashboards", {"query": "sales", "env_id": "dev"})
    assert not result.is_error
    assert result.structured_content["items"] == [{"id": 1, "title": "Sales"}]
    assert result.structured_content["env"] == "dev"
    assert '"Sales"' in _text(result)
    calls = _ops(mcp_server.log(mark), "call")
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
    calls = _ops(mcp_server.log(mark), "call")
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
    assert "permission_denied" in _text(result) and "admin" in _text(result)
    assert person.asked == []  # a forbidden call is never a confirmation


@pytest.mark.parametrize("mode", ERAS)
async def test_accepted_guarded_write_on_prod_runs_once(
    mcp_server: FakeMcpServer, mode: str
) -> None:
    mark = mcp_server.mark()
    person = Person(("accept", "release 42 approved"))
    async with mcp_server.client("ops", mode=mode, elicit=person, name="claude-test") as c:
        result = await c.call_tool("deploy_dashboard", {"dashboard_id": "42", "target_env": "prod"})
    assert not result.is_error, _text(result)
    assert result.structured_content["tool"] == "deploy_dashboard"
    assert len(person.asked) == 1
    card = person.asked[0]
    assert card.mode == "form"
    for fact in ("deploy_dashboard", "dashboard_id: 42", "prod (tier prod)", "guarded (write)"):
        assert fact in card.message, card.message
    assert set(card.requested_schema["properties"]) == {"reason"}
    assert card.requested_schema.get("required", []) == []
    rows = mcp_server.log(mark)
    confirmed = _ops(rows, "confirmed")
    assert confirmed == [
        {
            "op": "confirmed",
            "tool": "deploy_dashboard",
            "reason": "release 42 approved",
            "channel": "mcp",
            "client": "claude-test",
            "user": "ops",
        }
    ]
    assert len(_ops(rows, "executed")) == 1


@pytest.mark.parametrize("mode", ERAS)
@pytest.mark.parametrize(
    ("action", "reason"), [("decline", "declined by the user"), ("cancel", "dismissed by the user")]
)
async def test_declined_or_cancelled_write_is_cancelled_and_recorded(
    mcp_server: FakeMcpServer, mode: str, action: str, reason: str
) -> None:
    mark = mcp_server.mark()
    async with mcp_server.client("ops", mode=mode, elicit=Person(action)) as c:
        result = await c.call_tool("deploy_dashboard", {"dashboard_id": "42", "target_env": "prod"})
    assert not result.is_error
    assert _text(result) == f"cancelled by the user: {reason}"
    assert result.structured_content["status"] == "cancelled"
    rows = mcp_server.log(mark)
    assert [r["reason"] for r in _ops(rows, "cancelled")] == [reason]
    assert _ops(rows, "cancelled")[0]["channel"] == "mcp"
    assert _ops(rows, "executed") == []


@pytest.mark.parametrize("mode", ERAS)
async def test_dangerous_call_accepted_too_early_is_refused_and_asked_again(
    mcp_server: FakeMcpServer, mode: str
) -> None:
    mark = mcp_server.mark()
    person = Person("accept", wait_s=COUNTDOWN_S + 0.5)
    started = time.monotonic()
    async with mcp_server.client("ops", mode=mode, elicit=person) as c:
        result = await c.call_tool("delete_dashboard", {"dashboard_id": "42", "env_id": "prod"})
    assert not result.is_error, _text(result)
    assert time.monotonic() - started >= COUNTDOWN_S
    assert len(person.asked) == 2
    assert person.asked[0].message.startswith("DANGEROUS")
    assert "accepted only 2 s after" in person.asked[0].message
    assert person.asked[1].message.startswith("Not yet: a dangerous operation")
    rows = mcp_server.log(mark)
    assert [r["reason"] for r in _ops(rows, "confirmation_refused")] == ["too_early"]
    assert len(_ops(rows, "confirmed")) == 1 and len(_ops(rows, "executed")) == 1


async def test_a_client_that_keeps_accepting_too_early_leaves_it_pending(
    mcp_server: FakeMcpServer,
) -> None:
    mark = mcp_server.mark()
    person = Person("accept")
    async with mcp_server.client("ops", elicit=person) as c:
        result = await c.call_tool("delete_dashboard", {"dashboard_id": "9", "env_id": "prod"})
    assert not result.is_error
    assert result.structured_content["status"] == "confirmation_required"
    assert "still waiting" in _text(result)
    assert len(person.asked) == 5
    assert _ops(mcp_server.log(mark), "executed") == []


@pytest.mark.parametrize("mode", ERAS)
async def test_client_without_elicitation_gets_the_id_and_a_link_and_nothing_runs(
    mcp_server: FakeMcpServer, mode: str
) -> None:
    mark = mcp_server.mark()
    async with mcp_server.client("ops", mode=mode) as c:
        result = await c.call_tool("deploy_dashboard", {"dashboard_id": "42", "target_env": "prod"})
    assert not result.is_error
    s = result.structured_content
    requested = _ops(mcp_server.log(mark), "confirm_requested")
    assert s["status"] == "confirmation_required"
    assert s["confirmation_id"] == requested[0]["confirmation_id"]
    assert s["url"] == f"{mcp_server.server.url}/agent?conv={s['conv_id']}"
    assert s["env_id"] == "prod" and s["tier"] == "prod" and s["risk_level"] == "guarded"
    text = _text(result)
    assert s["confirmation_id"] in text and s["url"] in text and text.startswith("Not run")
    assert _ops(mcp_server.log(mark), "executed") == []


async def test_an_elicitation_the_client_fails_leaves_the_call_pending(
    mcp_server: FakeMcpServer,
) -> None:
    mark = mcp_server.mark()
    person = Person(types.ErrorData(code=types.INTERNAL_ERROR, message="no UI"))
    async with mcp_server.client("ops", elicit=person) as c:
        result = await c.call_tool("deploy_dashboard", {"dashboard_id": "1", "target_env": "prod"})
    assert result.structured_content["status"] == "confirmation_required"
    assert "could not show the confirmation" in _text(result)
    assert _ops(mcp_server.log(mark), "executed") == []


async def test_migration_card_shows_the_preflight_diff(mcp_server: FakeMcpServer) -> None:
    person = Person("decline")
    async with mcp_server.client("ops", elicit=person) as c:
        await c.call_tool("execute_migration", {"dashboard_ids": ["7"], "target_env": "prod"})
    message = person.asked[0].message
    assert "Preflight (what it will change):" in message
    assert '"action": "overwrite"' in message and '"id": "7"' in message
