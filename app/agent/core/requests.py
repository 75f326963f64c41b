"""What a door hands the agent core, and what the core hands back when it refuses.

* What a door received, not yet checked: the :class:`Caller`, a turn's :class:`TurnInput`,
  an answer's :class:`ResumeInput` (a direct call's input is ``prepare_call``'s
  arguments).
* The checked requests the core takes: :class:`TurnRequest`, :class:`ResumeRequest`,
  :class:`CallRequest` — built only by ``prepare_turn`` / ``prepare_resume`` /
  ``prepare_call`` (``app.agent.core.checks``), so every field is already checked; a
  turn, a call or a confirmed answer carries its user's running :class:`Slot`.
* A refusal: :class:`RequestRefused` (``status``, a stable ``error`` code, a ``reason``
  for a person; already audited when raised). The SSE door turns it into ``error`` +
  ``done`` (:meth:`RequestRefused.event`), the HTTP door into docs/http-api.md's ``{"error",
  "reason"}`` with the status (:meth:`RequestRefused.http`). :data:`CONFIRMATION_STATUS`
  is the one table from a refused confirmation's reason to its HTTP status.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from app.agent.confirmation import ConfirmationRecord
from app.auth import Principal
from app.context import UIContext
from app.errors import ConfirmationError, SsToolsError
from app.events import ErrorEvent
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
    and the page context (JSON text or an object); ``lang``: the page's language, which a
    door with a page gives (its turns are said in it), else the message's."""

    message: str
    history: Sequence[Mapping[str, Any]] | None = None
    conv_id: str | None = None
    env_id: str | None = None
    uicontext: str | bytes | Mapping[str, Any] | None = None
    lang: str | None = None


@dataclass(frozen=True, kw_only=True)
class ResumeInput:
    """A person's answer to a confirmation as a door received it, not yet checked:
    ``prepare_resume`` checks its fields, :meth:`Confirmations.check` the confirmation.
    ``args``: the arguments edited before approving (None: as shown)."""

    conv_id: str
    confirmation_id: str
    decision: str
    reason: str | None = None
    args: Mapping[str, Any] | None = None


@dataclass(eq=False)
class Slot:
    """One of a user's running slots (``app.agent.core.limits``), taken when a request is
    checked and carried on it; held by one run until ``UserLimits.free``."""

    user_key: str
    number: int
    lease: str
    beat: asyncio.Task[None] | None = field(default=None, repr=False)
    freed: bool = False


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
    slot: Slot | None = field(default=None, repr=False)  # held until the run ends


@dataclass(frozen=True, kw_only=True)
class ResumeRequest(DoorRequest):
    """A person's answer to a pending confirmation, already consumed (single use)."""

    confirmation_id: str
    decision: Literal["confirm", "deny"]
    reason: str | None
    args: dict[str, Any] | None = None  # edited before approving; None = as shown
    confirmation: ConfirmationRecord | None = None  # the consumed one
    slot: Slot | None = field(default=None, repr=False)  # a confirmed answer's run


@dataclass(frozen=True, kw_only=True)
class CallRequest(DoorRequest):
    """A direct tool call whose every field is checked (built only by ``prepare_call``)."""

    tool_name: str
    arguments: dict[str, Any]
    uicontext: UIContext | None
    lang: str = "en"
    slot: Slot | None = field(default=None, repr=False)  # held until the run ends


def request_row(req: DoorRequest) -> dict[str, Any]:
    """The audit row's fields of a request: user, role, conv_id, channel and client."""
    return req.principal.audit_row(conv_id=req.conv_id, channel=req.channel, client=req.client)


#: The reason of a 403 for another user's conversation (a turn, a call, a read, a stop).
FOREIGN = "this conversation belongs to another user"

CONFIRMATION_STATUS: Mapping[str, int] = {
    "unknown": 404,
    "foreign_user": 403,
    "not_pending": 409,
    "replayed": 409,
    "expired": 410,
    "too_early": 425,
    "mismatch": 409,
}


def confirmation_status(reason: str) -> int:
    """The HTTP status of a refused confirmation (400 for a reason the table lacks)."""
    return CONFIRMATION_STATUS.get(reason, 400)


class RequestRefused(SsToolsError):
    """A refused request: ``status`` (4xx), ``error`` (a stable code) and ``reason`` (a
    sentence for a person, never the input echoed back). Already audited when raised."""

    def __init__(
        self,
        status: int,
        error: str,
        reason: str,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(reason)
        self.status = status
        self.error = error
        self.reason = reason
        self.headers = dict(headers or {})

    def event(self) -> ErrorEvent:
        """The ``error`` event of the SSE door (a ``done`` follows it)."""
        return ErrorEvent(code=self.error, message=self.reason, status_code=self.status)

    def http(self) -> tuple[int, str, str, dict[str, Any]]:
        """``(status, error, reason, extra fields)`` of the HTTP door's JSON answer."""
        return self.status, self.error, self.reason, {}


class RateLimited(RequestRefused):
    """A request over one of its user's limits (``app.agent.core.limits``): 429 with
    ``Retry-After`` (``retry_after_s``, whole seconds); ``error`` says which limit
    (``rate_limited``: the pace; ``too_many_running``: the running ones)."""

    def __init__(self, error: str, reason: str, retry_after_s: int) -> None:
        super().__init__(429, error, reason, headers={"Retry-After": str(retry_after_s)})
        self.retry_after_s = retry_after_s

    def http(self) -> tuple[int, str, str, dict[str, Any]]:
        return self.status, self.error, self.reason, {"retry_after_s": self.retry_after_s}


class ConfirmationRefused(RequestRefused):
    """A refused confirmation. The stream says ``confirmation_<code>``; the HTTP API answers
    ``{"error": "confirmation_refused", "reason": <code>, "message": <sentence>}``."""

    def __init__(self, exc: ConfirmationError) -> None:
        super().__init__(confirmation_status(exc.reason), f"confirmation_{exc.reason}", str(exc))
        self.code = exc.reason

    def http(self) -> tuple[int, str, str, dict[str, Any]]:
        return self.status, "confirmation_refused", self.code, {"message": self.reason}
