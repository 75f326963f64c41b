"""Per-user limits as the HTTP and MCP doors answer them: a burst of turns or calls past
the pace, and a request while the user's running slots are full, get 429 with
``Retry-After`` (HTTP) or a tool error naming the limit and the wait (MCP); a Stop is
never limited. The limits' clock is fake: every wait is exact."""

from __future__ import annotations

import asyncio
from typing import Any

from nicegui import app
from nicegui.testing import User

from app.mcp.core_gateway import CoreGateway
from app.mcp.http import DOOR_STATE
from tests.agent.harness import Harness, token_for
from tests.agent.scripted import recording_tools
from tests.agent.test_user_limits import Blocking, FakeClock, limited
from tests.mcp.support import open_session, tools_call
from tests.support import served


def serve(harness: Harness, *script: Any, tools: dict[str, Any] | None = None) -> None:
    """The app's doors (HTTP and MCP) on a core with the harness's limits, a fixed clock."""
    harness.use(*script, tools=tools or recording_tools([]))
    assert harness.core is not None
    harness.core.limits.clock = FakeClock()
    getattr(app.state, DOOR_STATE).gateway = CoreGateway(harness.core)


def alice() -> dict[str, str]:
    return {"Authorization": f"Bearer {token_for(served(), 'alice', 'admin')}"}


async def test_a_burst_of_turns_over_http_gets_429_with_retry_after(
    user: User, harness: Harness
) -> None:
    limited(harness, user_turns_per_minute=2)
    serve(harness, "one", "two", "three")
    answers = [
        await user.http_client.post("/api/agent/stream", json={"message": "hi"}, headers=alice())
        for _ in range(3)
    ]
    assert [r.status_code for r in answers] == [200, 200, 429]
    refused = answers[-1]
    assert refused.headers["retry-after"] == "30"
    assert refused.json() == {
        "error": "rate_limited",
        "reason": "Too many turns: at most 2 a minute.",
        "retry_after_s": 30,
    }
    [row] = harness.audit_rows(kind="rate_limited")
    assert (row["user"], row["channel"]) == ("alice", "http")


async def test_a_burst_of_direct_calls_over_http_gets_429(user: User, harness: Harness) -> None:
    limited(harness, user_calls_per_minute=2)
    serve(harness)
    body = {"conv_id": "calls", "tool_name": "list_backups", "args": {}}
    codes = [
        (await user.http_client.post("/api/agent/call", json=body, headers=alice())).status_code
        for _ in range(3)
    ]
    assert codes == [200, 200, 429]


async def _running(harness: Harness, blocking: Blocking, request: Any) -> asyncio.Future[Any]:
    """``request`` (a coroutine) running until ``blocking.release``, holding its slot."""
    task = asyncio.ensure_future(request)
    await blocking.started.wait()
    return task


async def test_while_the_slots_are_full_http_gets_429_and_a_stop_still_goes_through(
    user: User, harness: Harness
) -> None:
    limited(harness, user_max_running=1)
    blocking = Blocking()
    serve(harness, "hi", tools=blocking.tools())
    body = {"conv_id": "busy", "tool_name": "list_backups", "args": {}}
    task = await _running(
        harness, blocking, user.http_client.post("/api/agent/call", json=body, headers=alice())
    )
    r = await user.http_client.post("/api/agent/stream", json={"message": "hi"}, headers=alice())
    assert r.status_code == 429 and r.headers["retry-after"] == "5"
    assert r.json()["error"] == "too_many_running"
    stop = await user.http_client.post(
        "/api/agent/cancel", json={"conv_id": "busy"}, headers=alice()
    )
    assert stop.status_code == 200 and stop.json()["stopped"] is True
    assert (await task).status_code == 200
    assert harness.core is not None
    await harness.core.turns().drain()
    r = await user.http_client.post("/api/agent/stream", json={"message": "hi"}, headers=alice())
    assert r.status_code == 200  # the stopped run gave its slot back


# ---- MCP ---------------------------------------------------------------------------------
async def _mcp_session(user: User) -> dict[str, str]:
    assert await getattr(app.state, DOOR_STATE).wait_ready()
    return await open_session(user.http_client, token_for(served(), "alice", "admin"))


async def _tools_call(user: User, headers: dict[str, str], n: int) -> dict[str, Any]:
    return await tools_call(user.http_client, headers, "list_backups", {}, rpc_id=n)


async def test_a_burst_of_mcp_tool_calls_gets_a_tool_error_with_the_wait(
    user: User, harness: Harness
) -> None:
    limited(harness, user_calls_per_minute=2)
    serve(harness)
    headers = await _mcp_session(user)
    results = [await _tools_call(user, headers, n) for n in (2, 3, 4)]
    assert [bool(r.get("isError")) for r in results] == [False, False, True]
    refused = results[-1]
    assert refused["structuredContent"] == {
        "error": "rate_limited",
        "reason": "rate_limited",
        "status": 429,
        "message": "Too many tool calls: at most 2 a minute.",
        "retry_after_s": 30,
    }
    text = " ".join(c["text"] for c in refused["content"])
    assert "Retry after 30 s." in text
    [row] = harness.audit_rows(kind="rate_limited")
    assert (row["user"], row["channel"]) == ("alice", "mcp")


async def test_an_mcp_call_while_the_slots_are_full_is_refused_with_the_wait(
    user: User, harness: Harness
) -> None:
    limited(harness, user_max_running=1)
    blocking = Blocking()
    serve(harness, tools=blocking.tools())
    headers = await _mcp_session(user)
    task = await _running(harness, blocking, _tools_call(user, headers, 2))
    refused = await _tools_call(user, headers, 3)
    assert refused["isError"] and refused["structuredContent"]["error"] == "too_many_running"
    assert refused["structuredContent"]["retry_after_s"] == 5
    blocking.release.set()
    assert not (await task).get("isError")
