"""Event builders shared by tests of the stream's consumers (the page, the screen model,
the MCP results): the fields a test does not care about get plain defaults. A
confirmation card: :func:`confirm_card`."""

from __future__ import annotations

from typing import Any

from app.events import (
    ConfirmMetadataV2,
    ConfirmRequiredEvent,
    DoneEvent,
    Event,
    Offer,
    OfferedCall,
    ToolStartEvent,
    ToolTimeoutEvent,
)
from app.vocab import RISK_LEVEL, Risk


def confirm_card(
    tool: str,
    args: dict[str, Any],
    *,
    env: str | None,
    risk: Risk = "write",
    tier: str | None = None,
    countdown_s: int = 0,
    conv_id: str = "",
    confirmation_id: str = "conf-1",
    call_id: str = "call-1",
    expires_at: str = "",
    **meta: Any,
) -> ConfirmRequiredEvent:
    """A ``confirm_required`` event for ``tool`` with ``args`` on ``env``, its card as the
    guard words a call of that ``risk``: a delete is dangerous, the tier is ``tier`` or the
    env's own name when that is a tier, else prod. ``meta``: more of the card's fields (or
    others in place of these)."""
    dangerous = risk == "delete"
    tier = tier or (env if env in ("dev", "staging", "prod") else "prod")
    card = {
        "tool_name": tool,
        "tool_args": args,
        "risk": risk,
        "risk_level": RISK_LEVEL[risk],
        "dangerous": dangerous,
        "env_id": env,
        "env_context": tier,
        "card_state": "dangerous" if dangerous else f"write_{tier}",
    }
    return ConfirmRequiredEvent(
        conv_id=conv_id,
        confirmation_id=confirmation_id,
        call_id=call_id,
        countdown_s=countdown_s,
        expires_at=expires_at,
        metadata=ConfirmMetadataV2.model_validate({**card, **meta}),
    )


def timed_out(
    call_id: str = "c1",
    tool_name: str = "x",
    *,
    retryable: bool = False,
    unknown: bool = True,
    timeout_s: float = 30,
    message: str = "timed out",
    offers: list[Offer] | None = None,
) -> ToolTimeoutEvent:
    """A tool call that ran out of time; by default a write's (not retryable, its status
    unknown)."""
    return ToolTimeoutEvent(
        call_id=call_id,
        tool_name=tool_name,
        timeout_s=timeout_s,
        retryable=retryable,
        status_unknown=unknown,
        message=message,
        offers=offers or [],
    )


def check_status_offer(
    task_id: str | None, *, clear_context: bool = False, lang: str = "en"
) -> Offer:
    """The core's "Check status" of a write that timed out (``app.agent.offers``): a direct
    get_task_status call, by the task's id when there is one."""
    request = {"en": "check the status of task {}", "ru": "проверь статус задачи {}"}[lang]
    label = {"en": "Check status", "ru": "Проверить статус"}[lang]
    return Offer(
        kind="check_status",
        label=label,
        request=request.format(task_id),
        call=OfferedCall(tool_name="get_task_status", args={"task_id": task_id} if task_id else {}),
        clear_context=clear_context,
    )


def write_timed_out(
    task_id: str | None, *, clear_context: bool = False, lang: str = "en"
) -> list[Event]:
    """A turn whose deploy (call ``w``, with ``task_id``) timed out, its status unknown;
    the core offers "Check status" (``clear_context``: on a page that filters
    get_task_status out)."""
    offer = check_status_offer(task_id, clear_context=clear_context, lang=lang)
    return [
        ToolStartEvent(
            call_id="w", tool_name="deploy_dashboard", is_write_tool=True, task_id=task_id
        ),
        timed_out("w", "deploy_dashboard", timeout_s=600, offers=[offer]),
        DoneEvent(state="idle"),
    ]
