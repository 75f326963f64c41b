"""The checked requests the agent core takes: built only by ``prepare_turn``,
``prepare_resume`` and ``prepare_call`` (``app.agent.core.prepare`` / ``resuming`` /
``calls``), so every field is already checked; and what a door hands them: the
:class:`Caller` and a turn's :class:`TurnInput` (an answer's: ``confirm.ResumeInput``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from app.auth import Principal
from app.context import UIContext
from app.vocab import Channel, Lang


@dataclass(frozen=True)
class HistoryItem:
    role: Literal["user", "assistant"]
    text: str


@dataclass(frozen=True, kw_only=True)
class Caller:
    """Who asks, through which door, before it is checked: a ``token`` to verify, or a
    ``principal`` the door already verified (checked again to be active); ``user_id``, when
    a door names one, must be the token's subject; the door (``channel``) and which MCP
    ``client``. Built by each door and handed to ``prepare_*`` (``authenticate``)."""

    token: str | None = field(default=None, repr=False)  # a secret: never in a repr or log
    principal: Principal | None = None
    user_id: str | None = None
    channel: Channel
    client: str | None = None


@dataclass(frozen=True, kw_only=True)
class TurnInput:
    """A turn as a door received it, not yet checked (``prepare_turn`` checks it): the
    message, the page's history, the conversation (None: a new one), the environment
    and the page context (JSON text or an object)."""

    message: str
    history: Sequence[Mapping[str, Any]] | None = None
    conv_id: str | None = None
    env_id: str | None = None
    uicontext: str | bytes | Mapping[str, Any] | None = None


@dataclass(frozen=True, kw_only=True)
class DoorRequest:
    """Who asks (a verified principal), in which conversation, through which door (and
    which MCP client): what every request to the core carries, and its audit row's."""

    principal: Principal
    conv_id: str
    channel: Channel
    client: str | None = None


@dataclass(frozen=True, kw_only=True)
class TurnRequest(DoorRequest):
    """A turn whose every field is checked (built only by ``prepare_turn``)."""

    message: str
    history: tuple[HistoryItem, ...]
    env_id: str | None
    uicontext: UIContext | None
    lang: Lang


@dataclass(frozen=True, kw_only=True)
class ResumeRequest(DoorRequest):
    """A person's answer to a pending confirmation, already consumed (single use)."""

    confirmation_id: str
    decision: Literal["confirm", "deny"]
    reason: str | None
    args: dict[str, Any] | None = None  # issue 11 (edit before approving); None = as shown
    confirmation: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, kw_only=True)
class CallRequest(DoorRequest):
    """A direct tool call whose every field is checked (built only by ``prepare_call``)."""

    tool_name: str
    arguments: dict[str, Any]
    uicontext: UIContext | None
    lang: str = "en"


def request_row(req: DoorRequest) -> dict[str, Any]:
    """The audit row's fields of a request: user, role, conv_id, channel and client."""
    return req.principal.audit_row(conv_id=req.conv_id, channel=req.channel, client=req.client)
