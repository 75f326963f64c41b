"""A new message supersedes a pending confirmation (and a stop withdraws one): the
confirmation is spent (it can no longer be confirmed), the pending call is cancelled with
an audit row, and the graph resumes with a denial so the checkpoint is consistent before
the new message runs."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from langgraph.types import Command

from app.agent.audit import audit_scope
from app.agent.core.protocol import Core
from app.agent.core.runner import run_graph
from app.agent.core.turns import run_config
from app.agent.state import AgentContext
from app.agent.stream import Sequencer
from app.auth import Principal
from app.events import Event

SUPERSEDED = "superseded by a new message"
WITHDRAWN = "withdrawn: the turn was stopped"

ContextFor = Callable[[Mapping[str, Any]], AgentContext]


async def supersede(
    core: Core,
    graph: Any,
    state: Any,
    principal: Principal,
    conv_id: str,
    seq: Sequencer,
    context_for: ContextFor,
    *,
    reason: str = SUPERSEDED,
) -> AsyncIterator[Event]:
    """Deny every pending interrupt of ``state`` (``context_for(turn)`` rebuilds the run's
    context from the checkpointed turn). ``reason``: why (a new message; a stop withdraws
    it with ``WITHDRAWN``)."""
    while state.interrupts:
        ctx = context_for(state.values.get("turn") or {})
        for intr in state.interrupts:
            cid = (intr.value or {}).get("confirmation_id")
            if cid:
                with audit_scope(ctx.channel, ctx.client):
                    await core.confirmations.spend(graph, principal, conv_id, cid)
            await core.audit.record(
                kind="cancelled",
                decision="cancel",
                reason=reason,
                **principal.audit_row(conv_id=conv_id, channel=ctx.channel, client=ctx.client),
            )
        resume: Command[Any] = Command(resume={"decision": "deny", "reason": reason})
        async for ev in run_graph(core, graph, resume, run_config(conv_id), ctx, seq, final=False):
            yield ev
        state = await graph.aget_state(run_config(conv_id))  # several pending: deny them all
