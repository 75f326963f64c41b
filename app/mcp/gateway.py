"""What the MCP door needs from the agent core: the :class:`ToolGateway` protocol.

The door holds no policy. It asks the gateway which tools a caller sees, hands it one
tool call (or a person's decision on a pending confirmation) and maps the typed events
that come back onto MCP. Everything that decides — RBAC, context affinity, the
environment and its tier, maintenance windows, confirmation, single-use and binding of a
confirmation, the 10 s gate for dangerous calls, retries and timeouts, audit rows — runs
behind this protocol, on the same guard → confirm → tool seam as the page and the HTTP
API.

Refusals before any event (a foreign or spent confirmation, a dangerous call confirmed
too early, ...) are raised as :class:`GatewayRefused`, already audited by the gateway.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from app.agent.core.requests import DoorRequest
from app.errors import SsToolsError
from app.vocab import Channel, Risk

if TYPE_CHECKING:
    from app.auth import Principal
    from app.context import UIContext
    from app.events import Event

__all__ = [
    "GatewayRefused",
    "ToolCallRequest",
    "ToolGateway",
    "ToolInfo",
    "ToolResumeRequest",
]


@dataclass(frozen=True)
class ToolInfo:
    """One tool as the pipeline offers it to a caller (``tools/list``)."""

    name: str
    description: str
    input_schema: dict[str, Any]  # the args model's JSON schema
    risk: Risk
    idempotent: bool = False
    open_world: bool = True
    title: str | None = None


@dataclass(frozen=True, kw_only=True)
class ToolCallRequest(DoorRequest):
    """One direct tool call through the MCP door (no model in the loop); ``client``: the
    MCP client's name (initialize clientInfo). Its fields are ``prepare_call``'s."""

    tool_name: str
    arguments: dict[str, Any]
    uicontext: UIContext | None = None
    channel: Channel = "mcp"


@dataclass(frozen=True, kw_only=True)
class ToolResumeRequest(DoorRequest):
    """A person's decision on a pending confirmation, taken through the MCP door. Its
    fields are ``prepare_resume``'s input's (``ResumeInput``) and caller's."""

    confirmation_id: str
    decision: Literal["confirm", "deny"]
    reason: str | None = None
    channel: Channel = "mcp"


class GatewayRefused(SsToolsError):
    """The gateway refused a request before any event (already audited).

    ``status`` and ``error`` follow the HTTP API (e.g. 425 with ``reason`` ``too_early``
    for a dangerous call confirmed before its countdown ran); ``reason`` is a stable
    code, the message a sentence for a person."""

    def __init__(
        self,
        message: str,
        *,
        status: int,
        error: str,
        reason: str,
        retry_after_s: int | None = None,
        **details: Any,
    ) -> None:
        super().__init__(message, **details)
        self.status = status
        self.error = error
        self.reason = reason
        self.retry_after_s = retry_after_s  # a 429: the caller may try again after this

    @property
    def too_early(self) -> bool:
        return self.reason == "too_early" or self.status == 425


class ToolGateway(Protocol):
    """The agent core as the MCP door sees it."""

    @property
    def status_tool(self) -> str:
        """The name of the tool that reports a task, and a request for approval, by its id
        (the one the catalog's specs say serves ``task_status``)."""
        ...

    async def list_tools(
        self, principal: Principal, context: UIContext | None
    ) -> Sequence[ToolInfo]:
        """The pipeline's answer for this caller's role and context (the same set as
        ``GET /api/agent/tools``)."""
        ...

    def call_tool(self, req: ToolCallRequest) -> AsyncIterator[Event]:
        """Run one call through guard → confirm → tool. Yields ``tool_start``/
        ``tool_progress``/``tool_retry``/``tool_end``/``tool_timeout``, or
        ``confirm_required`` then ``done(awaiting_confirmation)``, or
        ``permission_denied``/``error``; always ends with ``done``."""
        ...

    def resume(self, req: ToolResumeRequest) -> AsyncIterator[Event]:
        """Continue after a decision (single use, bound to conversation, user, tool,
        arguments and environment). Raises :class:`GatewayRefused` on the first
        iteration when the decision is refused (``too_early`` among others)."""
        ...
