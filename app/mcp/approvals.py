"""Four-eyes through MCP: the queue and a decision, as two tools of the door (beside the
catalog's, listed only while policy turns four-eyes on, so the tool list is the HTTP
API's whenever it is off):

* ``list_approvals`` ``{status?}`` — the requests waiting (an approver sees all, with
  ``may_decide`` on the others'; anyone else their own);
* ``decide_approval`` ``{approval_id, decision: approve | deny | withdraw, reason?}`` — a
  second person approves or denies; the requester withdraws.

Nothing decides here: the door hands the caller's verified principal to the core
(``app.agent.core.approvals``), which refuses the requester's own approval on this door
as on every other one. A refusal is a tool error naming it (``own_request``, ...).
"""

from __future__ import annotations

from typing import Any, Protocol

import mcp_types as types

from app.auth import Principal
from app.mcp.gateway import GatewayRefused

LIST, DECIDE = "list_approvals", "decide_approval"
DOOR_TOOLS = (LIST, DECIDE)

__all__ = ["DOOR_TOOLS", "ApprovalDoor", "call_door_tool", "door_tools"]


class ApprovalDoor(Protocol):
    """The core's approval queue as the MCP door sees it (``CoreGateway.approvals``)."""

    def enabled(self) -> bool: ...

    async def list(
        self, principal: Principal, client: str | None, status: str
    ) -> list[dict[str, Any]]: ...

    async def decide(
        self, principal: Principal, client: str | None, approval_id: str, decision: str,
        reason: str | None,
    ) -> dict[str, Any]: ...  # fmt: skip


def door_tools() -> list[types.Tool]:
    """The two tools, with their schemas and hints."""
    listing = types.Tool(
        name=LIST,
        title="Approval requests",
        description="Lists calls that wait for a second person's approval (four-eyes): "
        "tool, arguments, environment, requester, expiry. Approvers see every request; "
        "others their own.",
        input_schema={
            "type": "object",
            "properties": {
                "status": {
                    "type": "string",
                    "enum": ["pending", "approved", "denied", "withdrawn", "expired", "all"],
                    "default": "pending",
                }
            },
        },
        annotations=types.ToolAnnotations(read_only_hint=True, open_world_hint=False),
    )
    deciding = types.Tool(
        name=DECIDE,
        title="Decide an approval request",
        description="A second person approves or denies a call that waits for approval "
        "(never its requester); its requester may withdraw it. Approved, it runs once, as "
        "its requester, in the requester's conversation.",
        input_schema={
            "type": "object",
            "properties": {
                "approval_id": {"type": "string"},
                "decision": {"type": "string", "enum": ["approve", "deny", "withdraw"]},
                "reason": {"type": "string", "maxLength": 2000},
            },
            "required": ["approval_id", "decision"],
        },
        annotations=types.ToolAnnotations(destructive_hint=True, open_world_hint=True),
    )
    return [listing, deciding]


def _error(error: str, reason: str, status: int, message: str) -> types.CallToolResult:
    structured = {"error": error, "reason": reason, "status": status, "message": message}
    return types.CallToolResult(
        content=[types.TextContent(text=f"{error}: {message}")],
        structured_content=structured,
        is_error=True,
    )


async def call_door_tool(
    door: ApprovalDoor, principal: Principal, client: str | None, name: str,
    arguments: dict[str, Any],
) -> types.CallToolResult:  # fmt: skip
    """Run one of :data:`DOOR_TOOLS` for the caller."""
    try:
        if name == LIST:
            status = arguments.get("status") or "pending"
            rows = await door.list(principal, client, str(status))
            text = f"{len(rows)} request(s): " + "; ".join(
                f"{r['id']} {r['tool']} on {r['env_id']} by {r['requester']} ({r['status']})"
                for r in rows
            )
            return types.CallToolResult(
                content=[types.TextContent(text=text)],
                structured_content={"approvals": rows},
                is_error=False,
            )
        approval_id, decision = arguments.get("approval_id"), arguments.get("decision")
        reason = arguments.get("reason")
        if not isinstance(approval_id, str) or not isinstance(decision, str):
            return _error("invalid_arguments", "invalid_arguments", 422,
                          "approval_id and decision are required text")  # fmt: skip
        answer = await door.decide(
            principal, client, approval_id, decision, reason if isinstance(reason, str) else None
        )
    except GatewayRefused as exc:
        return _error(exc.error, exc.reason, exc.status, exc.message)
    request = answer["approval"]
    text = f"Request {request['id']} is {request['status']}"
    if answer.get("outcome"):
        text += f"; the call ended {answer['outcome']} in the requester's conversation"
    return types.CallToolResult(
        content=[types.TextContent(text=text + ".")], structured_content=answer, is_error=False
    )
