"""The approval queue as screen state (four-eyes): the header's count, and one request
as the card the requester confirmed (the same :class:`AgentChatModel` fields the
confirmation card binds to), for a second person on ``/approvals``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nicegui.binding import BindableProperty

from app.events import ConfirmMetadataV2, ConfirmRequiredEvent
from app.screen.chat_model import AgentChatModel


class ApprovalsCount:
    """How many requests the signed-in person could approve now (None: they may not
    approve, or four-eyes is off: the header shows no link)."""

    count = BindableProperty()

    def __init__(self, count: int | None = None) -> None:
        self.count = count


def request_model(request: Mapping[str, Any], *, role: str, lang: str) -> AgentChatModel:
    """A screen model showing ``request`` (``GET /api/approvals``' view) as its card: the
    arguments, the environment's badge and PRODUCTION banner, the preflight diff, the
    countdown of a dangerous call — what the requester saw and confirmed."""
    model = AgentChatModel(role=role, lang=lang, conv_id=str(request["conv_id"]))
    env = request.get("env_id")
    if env:
        model.learn_env_tier(str(env), request.get("tier"))
        model.update_active_env(str(env))
    card = ConfirmMetadataV2.model_validate(request.get("card") or {})
    event = ConfirmRequiredEvent(
        conv_id=str(request["conv_id"]),
        confirmation_id=str(request["id"]),  # the card's answer is a decision on this request
        call_id=str(request["call_id"]),
        metadata=card,
        countdown_s=card.countdown_s,
        expires_at=str(request.get("expires_at") or ""),
    )
    model.show_confirmation(event)
    return model
