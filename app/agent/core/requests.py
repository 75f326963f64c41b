"""The checked requests the agent core takes: built only by ``prepare_turn``,
``prepare_resume`` and ``prepare_call`` (``app.agent.core.prepare`` / ``resuming`` /
``calls``), so every field is already checked."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from app.auth import Principal
from app.context import UIContext
from app.vocab import Channel, Lang


@dataclass(frozen=True)
class HistoryItem:
    role: Literal["user", "assistant"]
    text: str


@dataclass(frozen=True)
class TurnRequest:
    """A turn whose every field is checked (built only by ``prepare_turn``)."""

    principal: Principal
    conv_id: str
    message: str
    history: tuple[HistoryItem, ...]
    env_id: str | None
    uicontext: UIContext | None
    channel: Channel
    lang: Lang
    client: str | None = None


@dataclass(frozen=True)
class ResumeRequest:
    """A person's answer to a pending confirmation, already consumed (single use)."""

    principal: Principal
    conv_id: str
    confirmation_id: str
    decision: Literal["confirm", "deny"]
    reason: str | None
    channel: Channel
    args: dict[str, Any] | None = None  # issue 11 (edit before approving); None = as shown
    confirmation: dict[str, Any] = field(default_factory=dict)
    client: str | None = None


@dataclass(frozen=True)
class CallRequest:
    """A direct tool call whose every field is checked (built only by ``prepare_call``)."""

    principal: Principal
    conv_id: str
    tool_name: str
    arguments: dict[str, Any]
    uicontext: UIContext | None
    channel: Channel
    client: str | None = None
    lang: str = "en"


def request_row(req: TurnRequest | ResumeRequest | CallRequest) -> dict[str, Any]:
    """The audit row's fields of a request: user, role, conv_id, channel and client."""
    return req.principal.audit_row(conv_id=req.conv_id, channel=req.channel, client=req.client)
