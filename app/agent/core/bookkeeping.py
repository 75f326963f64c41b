"""The bookkeeping around a run: its row in the conversation list (:func:`note_turn`),
the list's badge once it has ended (:func:`settle`), and a pending confirmation withdrawn
(:func:`supersede`: by a new message; :func:`withdraw`: by a stop), each spent, its call
cancelled with an audit row, and the graph resumed with a denial.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from langgraph.types import Command

from app.agent.approvals import withdraw_waiting
from app.agent.audit import audit_scope
from app.agent.core import conversations
from app.agent.core.collaborators import RunParts
from app.agent.core.control import RunControl
from app.agent.core.conversations import run_config
from app.agent.core.requests import DoorRequest, ResumeRequest, TurnRequest
from app.agent.core.runner import run_graph
from app.agent.core.turn_plan import turn_lang
from app.agent.state import AgentContext, Sequencer
from app.auth import Principal
from app.events import Event

log = logging.getLogger("ss_tools.agent")


SUPERSEDED = "superseded by a new message"
WITHDRAWN = "withdrawn: the turn was stopped"
AWAITING = "awaiting_confirmation"
Messages = Callable[[Mapping[str, Any]], list[Any]]
#: The run's context, for the checkpointed turn it continues.
ContextFor = Callable[[Mapping[str, Any]], AgentContext]


async def supersede(
    core: RunParts,
    graph: Any,
    state: Any,
    principal: Principal,
    conv_id: str,
    seq: Sequencer,
    context_for: ContextFor,
    *,
    reason: str = SUPERSEDED,
) -> AsyncIterator[Event]:
    """Withdraw every pending confirmation of ``state``: each is spent (it can never be
    confirmed), its call cancelled with an audit row, and the graph resumed with a denial
    so the checkpoint is consistent. ``reason``: a new message, or a stop (``WITHDRAWN``)."""
    while state.interrupts:
        ctx = context_for(state.values.get("turn") or {})
        for intr in state.interrupts:
            spent = core.confirmations  # a confirmation, or a wait for a second person
            with audit_scope(ctx.channel, ctx.client):
                await withdraw_waiting(spent, graph, principal, conv_id, intr.value or {}, reason)
            await core.audit.record(
                kind="cancelled",
                decision="cancel",
                reason=reason,
                **principal.audit_row(conv_id=conv_id, channel=ctx.channel, client=ctx.client),
            )
        denial: Command[Any] = Command(resume={"decision": "deny", "reason": reason})
        async for ev in run_graph(core, graph, denial, run_config(conv_id), ctx, seq, final=False):
            yield ev
        state = await graph.aget_state(run_config(conv_id))  # several pending: deny them all


def note_turn(core: RunParts, req: TurnRequest, control: RunControl) -> None:
    """Start writing the turn's row in the conversation list beside the run (the turn
    found the conversation new or the person's own); it is committed before ``done``."""
    ui = req.uicontext
    noted = conversations.note_turn(
        core.audit,
        req.conv_id,
        req.principal.user_id,
        req.message,
        ui.objectType if ui is not None else None,
        req.env_id or (ui.envId if ui is not None else None),
    )
    noted.add_done_callback(_log_failure)
    control.noted = noted


def _log_failure(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("noting the turn in the conversation list failed: %r", task.exception())


async def settle(core: RunParts, control: RunControl, req: DoorRequest) -> None:
    """Once the run's graph has ended: a stopped run leaves no confirmation waiting
    (withdrawn, audited); the list's badge follows whether a confirmation waits — known
    from the run's own ``done`` when the stream saw it to the end, else read from the
    checkpoint."""
    who = req.principal
    if control.done_state is not None and not (control.stopped or control.detached):
        pending = control.done_state == AWAITING
        if pending or isinstance(req, ResumeRequest):
            await conversations.note_pending(core.db, control.conv_id, who.user_id, pending)
        await core.audit.flush()
        return
    graph = await core.graph()
    state = await graph.aget_state(run_config(control.conv_id))
    if (state.values or {}).get("owner") != who.user_id:
        return
    if control.stopped and state.interrupts:
        await withdraw(core, graph, state, req, control)
        state = await graph.aget_state(run_config(control.conv_id))
    await conversations.note_pending(core.db, control.conv_id, who.user_id, bool(state.interrupts))
    await core.audit.flush()


async def withdraw(
    core: RunParts, graph: Any, state: Any, req: DoorRequest, control: RunControl
) -> str | None:
    """Deny every pending confirmation of the conversation (the run answers "Stopped");
    ``req``: who asked, through which door (a turn, an answer or a stop). Returns the first
    confirmation's id."""
    first = (state.interrupts[0].value or {}).get("confirmation_id")
    control.stopped = True  # the model is not asked again after the withdrawal
    lang = turn_lang(state.values or {})
    events = supersede(
        core,
        graph,
        state,
        req.principal,
        control.conv_id,
        Sequencer(control.conv_id),
        lambda turn_info: core.context_for(req, turn_info, lang, control),
        reason=WITHDRAWN,
    )
    async for _ in events:  # nobody listens after a stop: run the withdrawal (its audit
        pass  # row and checkpoint update) to its end and drop its events
    return first
