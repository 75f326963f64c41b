"""Stopping a turn, as the graph's nodes see it (issue 11).

A stop never tears the graph down: the run goes on through its own nodes, so every
checkpoint stays consistent (each AIMessage tool call gets its ToolMessage):

* the model call and a read tool in flight are *jobs* the stop cancels
  (:func:`cancellable`): the model node answers :func:`stopped_reply`, the tool node a
  cancelled result;
* a write in flight is never killed mid-call (:func:`shielded`): it runs to its end, its
  outcome is recorded as usual, and only then does the run finish;
* calls the guard checked but nobody started, and reads a stop cancelled, are cancelled
  results (:func:`cancel_calls`); a stopped run asks no new confirmation.

The run's :class:`RunControlLike` (the core's ``RunControl``) rides on the run context
(``AgentContext.control``); without one (a graph driven directly by a test) nothing stops.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any, Protocol, TypeVar

from langchain_core.messages import AIMessage, ToolMessage

from app.agent.audit import AuditWriter
from app.agent.state import AgentContext, PendingCall, call_row
from app.agent.stream import emit
from app.events import ToolEndEvent
from app.facts import Refusal
from app.i18n import t

T = TypeVar("T")

STOPPED_REASON = "the turn was stopped"


class RunControlLike(Protocol):
    """What a node needs of the run's control."""

    @property
    def stopped(self) -> bool: ...

    def track(
        self, job: asyncio.Future[Any], *, call_id: str = "", tool_name: str = "", write: bool
    ) -> None: ...


class Stopped(Exception):
    """A cancellable job was cancelled by a stop."""


def is_stopped(ctx: AgentContext) -> bool:
    control: RunControlLike | None = ctx.control
    return control is not None and control.stopped


async def cancellable(ctx: AgentContext, work: Awaitable[T], *, call_id: str = "") -> T:
    """Run ``work`` as a job a stop cancels; raise :class:`Stopped` when it did."""
    control: RunControlLike | None = ctx.control
    job = asyncio.ensure_future(work)
    if control is None:
        return await job
    control.track(job, call_id=call_id, write=False)
    try:
        return await job
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if job.cancelled() and control.stopped and not (current and current.cancelling()):
            raise Stopped from None
        raise


async def shielded(ctx: AgentContext, work: Awaitable[T], *, call_id: str, tool_name: str) -> T:
    """Run a write as a job nothing cancels: not a stop, not a cancelled run (the job goes
    on to its end and records its own outcome)."""
    job = asyncio.ensure_future(work)
    control: RunControlLike | None = ctx.control
    if control is not None:
        control.track(job, call_id=call_id, tool_name=tool_name, write=True)
    return await asyncio.shield(job)


def stopped_reply(ctx: AgentContext) -> AIMessage:
    """The model's last word in a stopped turn (no model is called)."""
    return AIMessage(content=t("stopped", ctx.lang))


def cancelled_call(p: PendingCall, reason: str | None) -> ToolMessage:
    """A call a person cancelled (a denial, a stop): its ``tool_end`` event, emitted, and
    what the model reads for it."""
    why = (reason or "").strip()
    said = "cancelled by the user" + (f": {why}" if why else "")
    call_id, name = p["call_id"], p["tool_name"]
    emit(ToolEndEvent(call_id=call_id, tool_name=name, status="cancelled", result=said))
    refusal = Refusal(
        code="cancelled",
        tool_name=name,
        message=said,
        args=p.get("tool_args") or {},
        env_id=p.get("env_id"),
        reason=why or None,
    )
    return ToolMessage(content=refusal.tool_result(), tool_call_id=call_id, name=name)


async def cancel_calls(
    pending: list[PendingCall], ctx: AgentContext, audit: AuditWriter
) -> list[ToolMessage]:
    """Calls of a stopped turn that did not run (or a read the stop cancelled): each is a
    cancelled result, with its ``tool_end`` event and an audit row."""
    out: list[ToolMessage] = []
    for p in pending:
        out.append(cancelled_call(p, STOPPED_REASON))
        await audit.record(
            kind="cancelled",
            decision="cancel",
            reason=STOPPED_REASON,
            args=p.get("tool_args"),
            **call_row(ctx, p["tool_name"], p.get("env_id")),
        )
    return out
