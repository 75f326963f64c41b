"""Saying no to one proposed call: the event a door shows (``permission_denied``, or an
``error`` carrying the typed refusal), the audit row, and the call's result the model
reads (``REFUSED: {json}``). A model's mistake shows at most one line a turn
(``app.agent.model_mistakes``).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage

from app.agent.audit import AuditWriter
from app.agent.model_mistakes import say_line
from app.agent.state import AgentContext, call_row
from app.events import BaseEvent, ErrorEvent, Offer, PermissionDeniedEvent
from app.facts import Refusal


def tool_message(text: str, call: dict[str, Any]) -> ToolMessage:
    """``text`` as the result of ``call`` (what the model reads)."""
    return ToolMessage(content=text, tool_call_id=call["id"], name=call["name"])


async def refuse(
    audit: AuditWriter,
    call: dict[str, Any],
    ctx: AgentContext,
    refusal: Refusal,
    *,
    kind: str,
    decision: str = "deny",
    offers: list[Offer] | None = None,
) -> ToolMessage:
    """Say no to ``call``: the event (``permission_denied``, or an ``error`` carrying
    the refusal), the audit row, and the call's result the model reads."""
    if refusal.code == "permission_denied":
        event: BaseEvent = PermissionDeniedEvent(
            tool_name=refusal.tool_name,
            required_role=refusal.required_role or "admin",
            alternatives=refusal.alternatives,
            message=refusal.message,
            refusal=refusal,
        )
    else:
        event = ErrorEvent(
            code=refusal.code,
            message=refusal.message,
            tool_name=refusal.tool_name,
            refusal=refusal,
            offers=offers or [],
        )
    say_line(event, refusal)  # a model's mistake: at most one line a turn
    await audit.record(
        kind=kind,
        decision=decision,
        reason=refusal.message,
        args=call.get("args"),
        superset_user=refusal.account,
        **call_row(ctx, call["name"], refusal.env_id),
    )
    return tool_message(refusal.tool_result(), call)
