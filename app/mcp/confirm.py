"""Asking a person to confirm a guarded or dangerous call, through MCP elicitation.

The server asks; the client's answer is never trusted to decide anything by itself:
"accept" becomes ``resume(confirm)`` and "decline"/"cancel" ``resume(deny)`` on the
gateway, which checks the confirmation (single use, bound to conversation, user, tool,
arguments and environment, expiry, the 10 s gate for dangerous calls) and audits.

Two wires, one rule:

* **Handshake era (≤ 2025-11-25)** — the door sends ``elicitation/create`` on the
  ``tools/call`` response stream and waits for the answer (:func:`confirm_in_band`).
* **2026-07-28** — the server cannot send requests; ``tools/call`` answers
  ``InputRequiredResult`` holding the same form, with the pending card in
  ``requestState`` (sealed by the SDK's ``RequestStateBoundary``), and the client's
  retry carries the answer (:func:`ask_input`, :func:`continue_input`).

A dangerous call accepted before its countdown ran is refused by the gateway
(``too_early``), and so is an acceptance while the person's running requests are full
(``too_many_running``: the confirmation is not spent); the door asks again, at most
:data:`MAX_ASKS` times in all, and then leaves the confirmation pending with its link.
A client that cannot show a form gets the confirmation id and the link
(``results.pending_result``); nothing runs unconfirmed.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal

import mcp_types as types
from mcp.server import ServerRequestContext
from mcp.server.elicitation import render_elicitation_schema
from mcp.server.session import ServerSession
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ServerMessageMetadata
from pydantic import ValidationError

from app.mcp.caller import Caller
from app.mcp.card import MAX_REASON_CHARS, ConfirmForm, PendingCard
from app.mcp.gateway import GatewayRefused, ToolGateway, ToolResumeRequest
from app.mcp.results import Outcome, ProgressFn, collect, pending_result, refused_outcome, to_result

log = logging.getLogger("ss_tools.mcp")

INPUT_KEY = "confirm"
MAX_ASKS = 5
CONFIRM_SCHEMA: dict[str, Any] = render_elicitation_schema(ConfirmForm)
NOT_SHOWN = "This client could not show the confirmation. "
STILL_PENDING = "It is still waiting for a confirmation. "
DENY_REASON = {"decline": "declined by the user", "cancel": "dismissed by the user"}

__all__ = [
    "CONFIRM_SCHEMA",
    "INPUT_KEY",
    "MAX_ASKS",
    "Decider",
    "ask_input",
    "can_elicit_form",
    "confirm_in_band",
    "continue_input",
]


def can_elicit_form(session: ServerSession) -> bool:
    """The client declared form elicitation (an empty ``elicitation: {}`` means form)."""
    caps = session.client_capabilities
    el = caps.elicitation if caps is not None else None
    return el is not None and (el.form is not None or el.url is None)


def _form_request(message: str) -> types.ElicitRequest:
    params = types.ElicitRequestFormParams(message=message, requested_schema=CONFIRM_SCHEMA)
    return types.ElicitRequest(params=params)


def _reason(content: dict[str, Any] | None) -> str | None:
    try:
        reason = ConfirmForm.model_validate(content or {}).reason
    except ValidationError:  # an over-long or mistyped reason: keep what is readable
        raw = (content or {}).get("reason")
        reason = raw[:MAX_REASON_CHARS] if isinstance(raw, str) else None
    return (reason.strip() or None) if reason else None


@dataclass
class Decider:
    """Turns a person's answer into the gateway's ``resume``."""

    gateway: ToolGateway
    caller: Caller
    on_progress: ProgressFn | None = None
    answer_timeout_s: float = 600.0  # how long an elicitation waits (the confirmation's TTL)

    async def decide(
        self, card: PendingCard, answer: types.ElicitResult
    ) -> tuple[Outcome | None, str]:
        """``(outcome, "")``, or ``(None, note)`` when the gateway wants it asked again."""
        decision: Literal["confirm", "deny"] = "confirm" if answer.action == "accept" else "deny"
        reason = _reason(answer.content) if decision == "confirm" else DENY_REASON[answer.action]
        req = ToolResumeRequest(
            principal=self.caller.principal,
            conv_id=card.conv_id,
            confirmation_id=card.confirmation_id,
            decision=decision,
            reason=reason,
            client=self.caller.client,
        )
        try:
            outcome = await collect(
                self.gateway.resume(req), tool_name=card.tool_name, on_progress=self.on_progress
            )
        except GatewayRefused as exc:
            if exc.too_early and decision == "confirm":
                return None, f"Not yet: {exc.message}. Review the card and accept again when ready."
            if exc.retry_after_s is not None and decision == "confirm":  # unspent: ask again
                return None, f"Not yet: {exc.message} Accept again in {exc.retry_after_s} s."
            return refused_outcome(exc, card.tool_name), ""
        return outcome, ""


async def _elicit(
    ctx: ServerRequestContext[Any, Any], message: str, timeout_s: float
) -> types.ElicitResult | None:
    """Ask on this request's stream; None when the client cannot answer."""
    try:
        return await ctx.session.send_request(
            _form_request(message),
            types.ElicitResult,
            request_read_timeout_seconds=timeout_s,
            metadata=ServerMessageMetadata(related_request_id=ctx.request_id),
        )
    except (MCPError, ValidationError) as exc:
        log.warning("mcp: elicitation not answered: %s", exc)
        return None


async def confirm_in_band(
    ctx: ServerRequestContext[Any, Any], decider: Decider, card: PendingCard
) -> types.CallToolResult:
    base = decider.caller.base_url
    note = ""
    for _ in range(MAX_ASKS):
        answer = await _elicit(ctx, card.ask(note), decider.answer_timeout_s)
        if answer is None:
            return pending_result(card, base_url=base, note=NOT_SHOWN)
        outcome, note = await decider.decide(card, answer)
        if outcome is None:
            continue
        if outcome.pending is None:
            return to_result(outcome, base_url=base, status_tool=decider.gateway.status_tool)
        card, note = outcome.pending, ""  # the gateway asks for another confirmation
    return pending_result(card, base_url=base, note=STILL_PENDING)


def ask_input(card: PendingCard, *, asks: int = 1, note: str = "") -> types.InputRequiredResult:
    """The 2026 wire: the form as an input request, the card as request state."""
    state = f"{asks}:{card.to_state()}"
    return types.InputRequiredResult(
        input_requests={INPUT_KEY: _form_request(card.ask(note))}, request_state=state
    )


def _answer_of(responses: dict[str, Any] | None) -> types.ElicitResult | None:
    raw = (responses or {}).get(INPUT_KEY)
    if raw is None or isinstance(raw, types.ElicitResult):
        return raw
    try:
        data = raw.model_dump(by_alias=True) if hasattr(raw, "model_dump") else raw
        return types.ElicitResult.model_validate(data)
    except ValidationError:
        return None


async def continue_input(
    decider: Decider, params: types.CallToolRequestParams
) -> types.CallToolResult | types.InputRequiredResult:
    """A 2026 retry: the sealed card and the person's answer → resume, or ask again."""
    asks_text, _, card_text = (params.request_state or "").partition(":")
    try:
        asks, card = int(asks_text), PendingCard.from_state(card_text)
    except (ValueError, KeyError, TypeError) as exc:
        raise MCPError(code=types.INVALID_PARAMS, message="invalid requestState") from exc
    base = decider.caller.base_url
    answer = _answer_of(params.input_responses)
    note = ""
    if answer is not None:
        outcome, note = await decider.decide(card, answer)
        if outcome is not None and outcome.pending is not None:
            return ask_input(outcome.pending)
        if outcome is not None:
            return to_result(outcome, base_url=base, status_tool=decider.gateway.status_tool)
    if asks >= MAX_ASKS:
        return pending_result(card, base_url=base, note=STILL_PENDING)
    return ask_input(card, asks=asks + 1, note=note)
