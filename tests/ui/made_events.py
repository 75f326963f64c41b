"""Events as the core yields them, made for the page's tests: a confirmation card's
event as the guard builds it, a turn's end, a streamed token, an answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.events import (
    ConfirmMetadataV2,
    ConfirmRequiredEvent,
    DoneEvent,
    MessageEvent,
    Offer,
    TokenEvent,
)


def confirm_event(
    card_state: str = "write_dev",
    *,
    tool: str = "deploy_dashboard",
    env: str = "dev",
    tier: str | None = None,
    dangerous: bool = False,
    countdown_s: int = 0,
    granted: bool = True,
    details: dict[str, Any] | None = None,
) -> ConfirmRequiredEvent:
    """A confirm_required event as the guard builds it (``tier`` defaults to the id when it
    is itself a tier name, else prod)."""
    risk = "delete" if dangerous else ("read" if card_state == "read" else "write")
    env_context = tier or (env if env in ("dev", "staging", "prod") else "prod")
    return ConfirmRequiredEvent(
        conv_id="c1",
        seq=3,
        confirmation_id="conf-1",
        call_id="call-9",
        countdown_s=countdown_s,
        metadata=ConfirmMetadataV2(
            tool_name=tool,
            tool_args={"dashboard_id": "42", "env_id": env},
            risk=risk,  # type: ignore[arg-type]
            risk_level="dangerous" if dangerous else "guarded",
            dangerous=dangerous,
            env_id=env,
            env_context=env_context,  # type: ignore[arg-type]
            permission_granted=granted,
            required_role=None if granted else "admin",
            alternatives=[] if granted else [{"action": "search", "prompt": "find it"}],  # type: ignore[list-item]
            card_state=card_state,  # type: ignore[arg-type]
            details=details,
            description=f"{tool.replace('_', ' ').capitalize()} 42 on {env}",
        ),
    )


def done(state: str = "idle") -> DoneEvent:
    return DoneEvent(state=state)  # type: ignore[arg-type]


def token(text: str) -> TokenEvent:
    return TokenEvent(text=text)


def message(text: str, model: str = "", offers: Sequence[Offer] = ()) -> MessageEvent:
    return MessageEvent(text=text, model=model, offers=list(offers))
