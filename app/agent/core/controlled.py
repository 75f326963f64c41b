"""A run under its conversation's run control (:func:`controlled`): one busy period at a
time in this process (``control.TurnRegistry``) and across replicas (:func:`claim`,
``replica_runs``), the user's slot (``limits``) freed once the graph has ended, and the
run's bookkeeping (``bookkeeping.settle``) after it. The core's ``run_turn``, ``run_call``
and ``resume`` (and a second person's decision) go through it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from typing import Any, Protocol

from app.agent.core.bookkeeping import settle
from app.agent.core.collaborators import StopParts
from app.agent.core.control import RunControl
from app.agent.core.limits import UserLimits
from app.agent.core.replica_runs import BUSY_WAIT_S, RESUME_WAIT_S
from app.agent.core.requests import DoorRequest, RequestRefused, ResumeRequest, Slot, request_row
from app.events import DoneEvent, Event

#: A run's events for a checked request under its run control (``runs.turn``, …).
Run = Callable[[Any, Any, RunControl], AsyncIterator[Event]]


class ControlParts(StopParts, Protocol):
    """What a controlled run works with: a Stop's parts and the per-user limits."""

    limits: UserLimits


async def controlled(parts: ControlParts, req: Any, run: Run) -> AsyncGenerator[Event, None]:
    """``run``'s events under the conversation's run control; at its ``done`` a turn's
    list row is committed; once the graph has ended, the bookkeeping (``bookkeeping.settle``)
    and the user's slot is freed (``req.slot``, taken by ``prepare_*``)."""
    registry = parts.turns()
    slot = parts.limits.adopt(getattr(req, "slot", None))
    try:
        control = await registry.begin(req.conv_id, req.principal.user_id)
        wait_s = RESUME_WAIT_S if isinstance(req, ResumeRequest) else BUSY_WAIT_S
        await parts.claim(control, req, wait_s)
    except BaseException:
        await asyncio.shield(parts.limits.free(slot))
        raise
    events = run(parts, req, control)
    try:
        async for ev in events:
            if isinstance(ev, DoneEvent):
                if control.noted is not None:
                    await control.noted
                control.done_state = ev.state
            yield ev
    finally:
        await events.aclose()  # type: ignore[attr-defined]  # an async generator
        registry.end(control, lambda: _settle(parts, control, req, slot))
        if all(task.done() for task in control.producers):  # the graph has ended:
            await parts.limits.free(slot)  # the slot is free before the door answers


async def _settle(parts: ControlParts, control: RunControl, req: Any, slot: Slot | None) -> None:
    """The run's bookkeeping, then its user's slot back (whatever the bookkeeping did)."""
    try:
        await settle(parts, control, req)
    finally:
        await parts.limits.free(slot)


async def claim(parts: StopParts, control: RunControl, req: DoorRequest, wait_s: float) -> None:
    """Take the conversation across replicas too (PostgreSQL; nothing on SQLite): a run
    of it on another replica refuses this one (409 ``conversation_busy``, audited)."""
    shared = parts.replica_runs()
    if shared is None:
        return
    try:
        await shared.claim(control, wait_s=wait_s)
    except BaseException as exc:
        parts.turns().abandon(control)
        if isinstance(exc, RequestRefused):
            await parts.audit.record(
                kind="request_invalid", decision="refused", reason=exc.error, **request_row(req)
            )
            await parts.audit.flush()
        raise
