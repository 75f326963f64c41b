"""The MCP door's :class:`~app.mcp.gateway.ToolGateway` over the agent core.

Nothing decides here; each method is the core's own entry:

* ``list_tools`` — ``offered_tools`` (the turn's pipeline: RBAC, then the context);
* ``call_tool`` — ``prepare_call`` + ``AgentCore.run_call`` (guard -> confirm -> tools);
* ``resume`` — ``prepare_resume`` (single use, bindings, expiry, the dangerous gate) +
  ``AgentCore.resume``;
* ``approvals`` — the approval queue (four-eyes: ``app.agent.core.approvals``), for the
  door's own two tools (``app.mcp.approvals``).

A refusal of ``prepare_*`` (already audited by the core) becomes :class:`GatewayRefused`.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import fields
from typing import Any, TypeVar

from app.agent.core import (
    AgentCore,
    Caller,
    RequestRefused,
    ResumeInput,
    offered_tools,
    prepare_call,
    prepare_resume,
)
from app.agent.core import approvals as queue
from app.agent.core.control import admitted
from app.agent.core.requests import DoorRequest
from app.auth import Principal
from app.context import UIContext
from app.events import Event
from app.mcp.gateway import GatewayRefused, ToolCallRequest, ToolInfo, ToolResumeRequest

__all__ = ["CoreGateway"]

R = TypeVar("R")


def _refused(exc: RequestRefused) -> GatewayRefused:
    code = getattr(exc, "code", None)  # a refused confirmation's reason, e.g. too_early
    wait = getattr(exc, "retry_after_s", None)  # a user over a limit: when to try again
    return GatewayRefused(
        exc.reason, status=exc.status, error=exc.error, reason=code or exc.error, retry_after_s=wait
    )


def _fields(value: Any) -> dict[str, Any]:
    """A dataclass's fields by name (shallow: a request's principal and context stay the
    objects the door verified). An offered tool's are the door's ``ToolInfo``'s."""
    return {f.name: getattr(value, f.name) for f in fields(value)}


def _caller(req: DoorRequest) -> Caller:
    """Who asks (the verified principal, the channel, the MCP client), as one Caller."""
    return Caller(principal=req.principal, channel=req.channel, client=req.client)


def _given(req: DoorRequest) -> dict[str, Any]:
    """A door request's fields but who asks (:func:`_caller`), by name."""
    return {k: v for k, v in _fields(req).items() if k not in ("principal", "channel", "client")}


async def _run(
    prepared: Awaitable[R], run: Callable[[R], AsyncIterator[Event]]
) -> AsyncIterator[Event]:
    """The events of a prepared request run by ``run``; a refusal raises GatewayRefused."""
    try:
        events = await admitted(prepared, run)
    except RequestRefused as exc:
        raise _refused(exc) from None
    async for event in events:
        yield event


class CoreApprovals:
    """The core's approval queue for the MCP door (``app.mcp.approvals.ApprovalDoor``)."""

    def __init__(self, core: AgentCore) -> None:
        self.core = core

    def enabled(self) -> bool:
        return self.core.rules.policy().approval.enabled

    async def list(
        self, principal: Principal, client: str | None, status: str
    ) -> list[dict[str, Any]]:
        caller = Caller(principal=principal, channel="mcp", client=client)
        try:
            return await queue.list_approvals(self.core, caller, status=status)
        except RequestRefused as exc:
            raise _refused(exc) from None

    async def decide(
        self, principal: Principal, client: str | None, approval_id: str, decision: str,
        reason: str | None,
    ) -> dict[str, Any]:  # fmt: skip
        caller = Caller(principal=principal, channel="mcp", client=client)
        try:
            if decision == "withdraw":
                return await queue.withdraw(self.core, caller, approval_id)
            return await queue.decide(self.core, caller, approval_id, decision, reason)
        except RequestRefused as exc:
            raise _refused(exc) from None


class CoreGateway:
    """The agent core as the MCP door sees it."""

    def __init__(self, core: AgentCore) -> None:
        self.core = core
        self.approvals = CoreApprovals(core)

    @functools.cached_property
    def status_tool(self) -> str:
        """Read once: a tool's name and what it serves are its spec's (a policy file
        changes roles, risk and confirmation, never a name), and every result asks."""
        return self.core.rules.serving("task_status")

    async def list_tools(
        self, principal: Principal, context: UIContext | None
    ) -> Sequence[ToolInfo]:
        offered = offered_tools(self.core.rules.policy(), principal, context, self.core.rules.tools)
        return [ToolInfo(**_fields(t)) for t in offered]  # the same fields, by name

    async def call_tool(self, req: ToolCallRequest) -> AsyncIterator[Event]:
        prepared = prepare_call(core=self.core, caller=_caller(req), **_given(req))
        async for event in _run(prepared, self.core.run_call):
            yield event

    async def resume(self, req: ToolResumeRequest) -> AsyncIterator[Event]:
        answer = ResumeInput(**_given(req))
        prepared = prepare_resume(answer, core=self.core, caller=_caller(req))
        async for event in _run(prepared, self.core.resume):
            yield event
