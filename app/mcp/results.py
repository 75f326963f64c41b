"""The gateway's typed events, read to one :class:`Outcome`, and that outcome as an MCP
tool result.

A completed call answers with the tool's structured output as ``structuredContent``
plus a short text (the same summarised text the agent's model reads); a write that can
be undone adds its typed ``undo`` offer (``offers``: the undo tool's call to make) and
says so in the text. A forbidden call,
a failure, a timeout or a refused decision is a tool error (``isError``) whose
structured content names the error, so an MCP client's model can read why. A call that
still waits for a person is *not* an error: it says so, with the confirmation id and a
link to ``/agent`` where the pending card is shown. So is a confirmed call that waits for a
second person's approval (four-eyes): ``status: awaiting_approval`` with the request's id
(the gateway's ``status_tool``, the tool that reports a task, reports it by that id) and a link to
``/approvals``.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import mcp_types as types

from app.agent.tool_result import DATA_LIMIT_BYTES
from app.events import (
    AwaitingApprovalEvent,
    ConfirmRequiredEvent,
    DoneEvent,
    ErrorEvent,
    Event,
    PermissionDeniedEvent,
    ToolEndEvent,
    ToolProgressEvent,
    ToolRetryEvent,
    ToolTimeoutEvent,
)
from app.mcp.card import PendingCard
from app.mcp.gateway import GatewayRefused

OutcomeKind = Literal[
    "completed",
    "failed",
    "cancelled",
    "timeout",
    "permission_denied",
    "error",
    "refused",
    "pending",
    "awaiting_approval",
]
ProgressFn = Callable[[float, float | None, str | None], Awaitable[None]]
MAX_JSON_CHARS = 1_000_000
__all__ = ["Outcome", "collect", "pending_result", "refused_outcome", "to_result"]


@dataclass
class Outcome:
    kind: OutcomeKind
    tool_name: str = ""
    text: str = ""
    structured: dict[str, Any] = field(default_factory=dict)
    pending: PendingCard | None = None
    conv_id: str = ""
    approval: AwaitingApprovalEvent | None = None  # waits for a second person


def _structured_output(ev: ToolEndEvent) -> dict[str, Any]:
    """The tool's output as a JSON object: the event's ``data`` (the tool's own result),
    else its text read as JSON; an object as is, anything else under ``result`` (MCP ≤
    2025-11-25 requires an object)."""
    value: Any = ev.data
    if value is None:
        text = ev.result
        stripped = text.strip()
        value = text
        if stripped[:1] in ("{", "[") and len(stripped) <= MAX_JSON_CHARS:
            try:
                value = json.loads(stripped)
            except ValueError:
                value = text
    return value if isinstance(value, dict) else {"result": value}


def _from_event(ev: Event, tool: str) -> Outcome | None:
    """The outcome a terminal event stands for; None for events that only inform."""
    structured: dict[str, Any]
    if isinstance(ev, ConfirmRequiredEvent):
        card = PendingCard.from_event(ev)
        return Outcome("pending", card.tool_name, pending=card, conv_id=ev.conv_id)
    if isinstance(ev, AwaitingApprovalEvent):
        return Outcome("awaiting_approval", ev.tool_name, approval=ev, conv_id=ev.conv_id)
    if isinstance(ev, PermissionDeniedEvent):
        alts = [a.model_dump() for a in ev.alternatives]
        structured = {
            "error": "permission_denied",
            "tool": ev.tool_name,
            "required_role": ev.required_role,
            "alternatives": alts,
            "message": ev.message,
        }
        hint = "; ".join(f"{a['action']} ({a['prompt']})" for a in alts)
        text = f"permission_denied: {ev.message}" + (f" You could instead: {hint}." if hint else "")
        return Outcome("permission_denied", ev.tool_name, text, structured)
    if isinstance(ev, ToolEndEvent):
        if ev.status == "completed":
            text = ev.result or f"{ev.tool_name} completed."
            if ev.data_truncated:
                text += f" (structured output cut to {DATA_LIMIT_BYTES // 1024} KiB)"
            if ev.cut_note:
                text += f"\n{ev.cut_note}"
            structured = _structured_output(ev)
            undo = next((o for o in ev.offers if o.kind == "undo" and o.call), None)
            if undo is not None and undo.call is not None:  # typed, whatever a model says
                structured["offers"] = [o.model_dump(mode="json") for o in ev.offers]
                text += (
                    f"\nCan be undone until {undo.expires_at} UTC: call {undo.call.tool_name} "
                    f"with {json.dumps(undo.call.args)}."
                )
            return Outcome("completed", ev.tool_name, text, structured)
        if ev.status == "cancelled":
            structured = {"status": "cancelled", "tool": ev.tool_name, "message": ev.result}
            return Outcome("cancelled", ev.tool_name, ev.result or "cancelled", structured)
        structured = {
            "error": "tool_failed",
            "tool": ev.tool_name,
            "message": ev.error or "",
            "retryable": ev.retryable,
            "retry_exhausted": ev.retry_exhausted,
        }
        return Outcome("failed", ev.tool_name, f"{ev.tool_name} failed: {ev.error}", structured)
    if isinstance(ev, ToolTimeoutEvent):
        structured = {
            "error": "tool_timeout",
            "tool": ev.tool_name,
            "message": ev.message,
            "retryable": ev.retryable,
            "status_unknown": ev.status_unknown,
        }
        return Outcome("timeout", ev.tool_name, ev.message, structured)
    if isinstance(ev, ErrorEvent):
        structured = {"error": ev.code, "message": ev.message, "tool": ev.tool_name or tool}
        if ev.refusal is not None:  # the typed facts, as every door gets them
            structured["refusal"] = ev.refusal.model_dump(mode="json", exclude_defaults=True)
        if ev.offers:
            structured["offers"] = [o.model_dump(mode="json", exclude_none=True) for o in ev.offers]
        return Outcome("error", ev.tool_name or tool, f"{ev.code}: {ev.message}", structured)
    return None


async def collect(
    events: AsyncIterator[Event], *, tool_name: str, on_progress: ProgressFn | None = None
) -> Outcome:
    """Read a gateway stream to its end: the first terminal event decides the outcome
    (a later ``error`` does not hide a ``tool_end``); progress is forwarded."""
    outcome: Outcome | None = None
    retried = False
    conv_id = ""
    async for ev in events:
        conv_id = ev.conv_id or conv_id
        if isinstance(ev, ToolProgressEvent) and on_progress is not None:
            await on_progress(float(ev.step), float(ev.total), ev.message or None)
        elif isinstance(ev, ToolRetryEvent):
            retried = True
        elif isinstance(ev, DoneEvent):
            break
        elif outcome is None:
            outcome = _from_event(ev, tool_name)
    if outcome is None:
        outcome = Outcome(
            "error",
            tool_name,
            "error: the call ended without a result",
            {"error": "no_result", "message": "the call ended without a result"},
        )
    if retried and outcome.kind in ("completed", "failed"):
        outcome.text += " (retried once after a transient error)"
    outcome.conv_id = outcome.conv_id or conv_id
    return outcome


def refused_outcome(exc: GatewayRefused, tool_name: str) -> Outcome:
    """A refusal as a tool error; one over the user's limits says when to try again
    (``retry_after_s``, as the HTTP door's ``Retry-After``)."""
    structured: dict[str, Any] = {
        "error": exc.error,
        "reason": exc.reason,
        "status": exc.status,
        "message": exc.message,
    }
    text = f"{exc.error} ({exc.reason}): {exc.message}"
    if exc.retry_after_s is not None:
        structured["retry_after_s"] = exc.retry_after_s
        text += f" Retry after {exc.retry_after_s} s."
    return Outcome("refused", tool_name, text, structured)


#: a call's fields in the structured content of a result that did not run it (yet)
_CALL_FIELDS = ("tool", "arguments", "env_id", "tier", "risk_level", "expires_at")


def _not_run(
    text: str, status: str, named: tuple[str, str], conv_id: str, url: str, call: tuple[Any, ...]
) -> types.CallToolResult:
    """A call that was not run (yet), which is not an error: ``text`` for the client's
    model; ``named`` the (key, id) of what it waits on; ``call`` its :data:`_CALL_FIELDS`."""
    structured = {"status": status, named[0]: named[1], "conv_id": conv_id, "url": url}
    structured.update(zip(_CALL_FIELDS, call, strict=True))
    return types.CallToolResult(
        content=[types.TextContent(text=text)], structured_content=structured, is_error=False
    )


def pending_result(card: PendingCard, *, base_url: str, note: str = "") -> types.CallToolResult:
    """A call that waits for a person: never run, with the confirmation id and a link."""
    url = f"{base_url}/agent?conv={card.conv_id}"
    where = f" on {card.env_id}" if card.env_id else ""
    text = (
        f"Not run: {card.tool_name} needs a person's confirmation ({card.risk_level}{where}). "
        f"{note}Open {url} to review the card and confirm or cancel it "
        f"(confirmation id {card.confirmation_id}). Do not call the tool again."
    )
    call: tuple[Any, ...] = (card.tool_name, card.arguments, card.env_id, card.tier)
    call += (card.risk_level, card.expires_at)
    named = ("confirmation_id", card.confirmation_id)
    return _not_run(text, "confirmation_required", named, card.conv_id, url, call)


def awaiting_result(
    ev: AwaitingApprovalEvent, *, base_url: str, status_tool: str
) -> types.CallToolResult:
    """A confirmed call that waits for a second person's approval: not run (yet), not an
    error; the request's id, where an approver decides it, and ``status_tool`` (the tool
    that reports it by that id)."""
    url = f"{base_url}/approvals"
    where = f" on {ev.env_id}" if ev.env_id else ""
    text = (
        f"Not run yet: {ev.tool_name}{where} was confirmed and now waits for a second "
        f"person's approval (request {ev.approval_id}, expires {ev.expires_at}). An approver "
        f"decides it at {url}; {status_tool} with task_id {ev.approval_id} reports it. "
        "Do not call the tool again."
    )
    call = (ev.tool_name, ev.tool_args, ev.env_id, ev.env_context, ev.risk_level, ev.expires_at)
    named = ("approval_id", ev.approval_id)
    return _not_run(text, "awaiting_approval", named, ev.conv_id, url, call)


def to_result(outcome: Outcome, *, base_url: str, status_tool: str) -> types.CallToolResult:
    """The outcome as MCP's result; ``status_tool``: the tool that reports a task."""
    if outcome.pending is not None:
        return pending_result(outcome.pending, base_url=base_url)
    if outcome.approval is not None:
        return awaiting_result(outcome.approval, base_url=base_url, status_tool=status_tool)
    return types.CallToolResult(
        content=[types.TextContent(text=outcome.text)],
        structured_content=outcome.structured,
        is_error=outcome.kind not in ("completed", "cancelled"),
    )
