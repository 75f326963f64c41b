"""Helpers of the MCP door's tests: a scripted person answering elicitations, readers of
results and of the fake gateway's decision log, and raw JSON-RPC requests with their
headers (for the tests that speak HTTP without the SDK)."""

from __future__ import annotations

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


def initialize(
    protocol: str = "2025-11-25", capabilities: dict[str, Any] | None = None, client: str = "raw"
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
