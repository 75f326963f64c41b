"""The checked requests the agent core takes: built only by ``prepare_turn`` and
``prepare_resume`` (``app.agent.core.prepare`` / ``resuming``), so every field is already
checked."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

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


class DoorRequest(Protocol):
    """What every checked request says: who asks, in which conversation, through which
    door (a turn, a resume, a direct call, a stop)."""

    @property
    def principal(self) -> Principal: ...
    @property
    def conv_id(self) -> str: ...
    @property
    def channel(self) -> Channel: ...
    @property
    def client(self) -> str | None: ...


def request_row(req: DoorRequest) -> dict[str, Any]:
    """The audit row's fields of a request: user, role, conv_id, channel and client."""
    who = req.principal
    return dict(
        user=who.user_id, role=who.role, conv_id=req.conv_id, channel=req.channel, client=req.client
    )
