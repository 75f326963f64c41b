"""Helpers of the MCP door's tests: a scripted person answering elicitations, readers of
results and of the fake gateway's decision log, and raw JSON-RPC requests with their
headers (for the tests that speak HTTP without the SDK: :func:`open_session`,
:func:`tools_call`)."""

from __future__ import annotations

import json
from typing import Any

import anyio
import mcp_types as types


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


def text_of(result: types.CallToolResult) -> str:
    return " ".join(c.text for c in result.content if isinstance(c, types.TextContent))


def ops(rows: list[dict[str, Any]], op: str) -> list[dict[str, Any]]:
    return [r for r in rows if r["op"] == op]


PROTOCOL = "2025-11-25"


def initialize(
    protocol: str = PROTOCOL, capabilities: dict[str, Any] | None = None, client: str = "raw"
) -> dict[str, Any]:
    """A JSON-RPC ``initialize`` request (id 1) for ``protocol`` with ``capabilities``."""
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": protocol,
            "capabilities": capabilities or {},
            "clientInfo": {"name": client, "version": "1"},
        },
    }


def bearer(token: str) -> dict[str, str]:
    """The headers of a raw MCP POST with ``token``: Authorization and Accept."""
    return {"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"}


def rpc_messages(r: Any) -> list[dict[str, Any]]:
    """The JSON-RPC messages of an answer (plain JSON, or the data lines of an SSE one)."""
    if r.headers.get("content-type", "").startswith("application/json"):
        return [r.json()]
    return [json.loads(line[5:]) for line in r.text.splitlines() if line.startswith("data:")]


async def open_session(http: Any, token: str, *, client: str = "raw") -> dict[str, str]:
    """An initialized MCP session (a client without forms) for ``token`` over ``http``
    (an httpx client of the app): the headers its requests carry."""
    headers = bearer(token)
    r = await http.post("/mcp", json=initialize(PROTOCOL, client=client), headers=headers)
    assert r.status_code == 200, r.text
    headers |= {"mcp-session-id": r.headers["mcp-session-id"], "mcp-protocol-version": PROTOCOL}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await http.post("/mcp", json=note, headers=headers)).status_code == 202
    return headers


async def tools_call(
    http: Any, headers: dict[str, str], name: str, arguments: dict[str, Any], rpc_id: int = 2
) -> dict[str, Any]:
    """``tools/call`` of ``name`` in the session of ``headers``: the call's result."""
    call = {"jsonrpc": "2.0", "id": rpc_id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments}}  # fmt: skip
    r = await http.post("/mcp", json=call, headers=headers)
    [answer] = [m for m in rpc_messages(r) if m.get("id") == rpc_id]
    return dict(answer["result"])
