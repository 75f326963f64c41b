"""How the core runs a checked request, top to bottom (``AgentCore`` calls these).

A **turn** (:func:`turn`) and a door's **direct call** (:func:`call`) open the same way
(:func:`run_opened`): the tools the request is offered (RBAC, then the page's context;
``turn_plan.plan_turn``), audited (``tool_filtered``); the conversation, which must be the
caller's own or new; a confirmation still pending is withdrawn first
(``bookkeeping.supersede``: spent, its call cancelled); then the graph runs from the new
messages and its output becomes typed events (``runner.run_graph``). A direct call enters
at the guard and ends after the tools. An **answer** (:func:`resume`) to a confirmation,
already consumed by ``prepare_resume``, is audited and resumes the graph.

After a run, ``bookkeeping.settle``: the conversation list's badge follows the
checkpoint, and a stopped run leaves no confirmation waiting. What a run is asked under
(its tool set and context): ``turn_plan``. What a run works with: ``collaborators.RunParts``.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.types import Command

from app.agent.acting import link_offer
from app.agent.audit import AuditWriter
from app.agent.core.bookkeeping import note_turn, supersede
from app.agent.core.checks import refuse_foreign
from app.agent.core.collaborators import RunParts
from app.agent.core.control import RunControl
from app.agent.core.conversations import run_config
from app.agent.core.edits import shown_and_edited
from app.agent.core.requests import (
    CallRequest,
    RequestRefused,
    ResumeRequest,
    TurnRequest,
    request_row,
)
from app.agent.core.runner import fail, run_graph
from app.agent.core.turn_plan import history_messages, plan_request, turn_lang
from app.agent.state import AgentContext, Sequencer, TurnInfo
from app.agent.turn_limits import DIRECT_KEY
from app.events import Event, Offer, TurnStartEvent
from app.i18n import t

#: The run's new messages, from the conversation's checkpointed values (before the run).
Messages = Callable[[Mapping[str, Any]], list[Any]]


async def turn(core: RunParts, req: TurnRequest, control: RunControl) -> AsyncIterator[Event]:
    """A person's message: ``turn_start`` at once (before the checkpoint or the database
    is touched), then the run's events and ``done``."""
    seq = Sequencer(req.conv_id)
    planned = plan_request(core.rules.policy(), req, req.env_id)
    yield seq(
        TurnStartEvent(
            model=core.model_label,
            tools_offered=len(planned["allowed_tools"]),
            object_type=planned["object_type"],
            env_id=planned["selected_env"],
            lang=req.lang,
        )
    )
    await audit_offer(core.audit, planned, request_row(req))

    def messages(values: Mapping[str, Any]) -> list[Any]:
        """The message; a new conversation is seeded with the page's history."""
        new = not values.get("messages")
        seeded = history_messages(req.history) if new and req.history else []
        return [*seeded, HumanMessage(content=req.message)]

    def owned() -> None:  # new or the person's own: its row in the list
        note_turn(core, req, control)

    async for ev in run_opened(core, req, planned, messages, seq, control, owned=owned):
        yield ev


def proposed_call(req: CallRequest) -> AIMessage:
    """The call as the model would have proposed it (the guard reads the last AIMessage);
    marked as a door's own, so the turn's checks count from it."""
    call_id = f"call_{uuid.uuid4().hex[:24]}"
    return AIMessage(
        content="",
        tool_calls=[
            {"name": req.tool_name, "args": req.arguments, "id": call_id, "type": "tool_call"}
        ],
        response_metadata={DIRECT_KEY: True},
    )


async def call(
    core: RunParts, req: CallRequest, control: RunControl | None = None
) -> AsyncIterator[Event]:
    """A door's direct call: ``tool_start`` .. ``tool_end``, or ``confirm_required`` then
    ``done(awaiting_confirmation)``, or ``permission_denied`` / ``error``; then ``done``."""
    seq = Sequencer(req.conv_id)
    planned = plan_request(core.rules.policy(), req)
    await audit_offer(core.audit, planned, request_row(req), direct_tool=req.tool_name)

    def messages(_values: Mapping[str, Any]) -> list[Any]:
        return [proposed_call(req)]

    async for ev in run_opened(core, req, planned, messages, seq, control, direct=True):
        yield ev


async def resume(core: RunParts, req: ResumeRequest, control: RunControl) -> AsyncIterator[Event]:
    """Continue the graph after ``prepare_resume`` consumed the confirmation: audit the
    answer (confirmed or cancelled, edited arguments beside the ones on the card), then
    resume; every confirmed answer is policed again in the graph (``app.agent.nodes.confirm``)."""
    seq = Sequencer(req.conv_id)
    graph = await core.graph()
    config = run_config(req.conv_id)
    state = await graph.aget_state(config)
    values = state.values or {}
    lang = turn_lang(values)
    ctx = core.context_for(req, values.get("turn") or {}, lang, control)
    confirmed = req.decision == "confirm"
    record = req.confirmation
    await core.audit.record(
        kind="confirmed" if confirmed else "cancelled",
        tool=record.tool_name if record else None,
        env=record.env_id if record else None,
        decision="confirm" if confirmed else "cancel",
        reason=req.reason if req.args is None else "confirmed with edited arguments",
        args=shown_and_edited(values, req),
        **request_row(req),
    )
    answer = {"decision": req.decision, "reason": req.reason, "args": req.args}
    cmd: Command[Any] = Command(resume=answer)
    async for ev in run_graph(core, graph, cmd, config, ctx, seq):
        yield ev


# ---- how a turn and a call open ---------------------------------------------------------
async def audit_offer(
    audit: AuditWriter, planned: TurnInfo, row: Mapping[str, Any], *, direct_tool: str | None = None
) -> None:
    """The ``tool_filtered`` row of the tool set (``direct_tool``: the one tool a door's
    direct call asks for; ``row``: who and where)."""
    context = planned["object_type"] or "no"
    offered = f"{len(planned['allowed_tools'])} tools offered for {context} context"
    await audit.record(
        kind="tool_filtered",
        decision="allow",
        tool=direct_tool,
        env=planned["selected_env"],
        reason=offered if direct_tool is None else f"direct call; {offered}",
        args={"excluded": planned.get("excluded")},
        **row,
    )


async def owned_state(core: RunParts, row: Mapping[str, Any]) -> tuple[Any, Any]:
    """The core's graph and the conversation's checkpointed state (``row``: who and where,
    as audited): the caller's own or a new one; another user's raises the audited 403."""
    graph = await core.graph()
    state = await graph.aget_state(run_config(row["conv_id"]))
    owner = (state.values or {}).get("owner")
    if owner and owner != row["user"]:
        raise await refuse_foreign(core.audit, **row)
    return graph, state


async def run_opened(
    core: RunParts,
    req: TurnRequest | CallRequest,
    planned: TurnInfo,
    messages: Messages,
    seq: Sequencer,
    control: RunControl | None,
    *,
    owned: Callable[[], object] = lambda: None,
    direct: bool = False,
) -> AsyncIterator[Event]:
    """Run ``req`` on its conversation once it is the caller's own or new (``owned()`` is
    told then; another user's: the audited 403 as ``error`` + ``done``): a pending
    confirmation is superseded first, then the graph runs from ``messages``; ``direct``: a
    door's direct call (the run ends after the tools)."""
    try:
        graph, state = await owned_state(core, request_row(req))
    except RequestRefused as refused:
        async for ev in fail(seq, refused.event(), core.audit):
            yield ev
        return
    values = state.values or {}
    owned()

    def context_for(turn_info: Mapping[str, Any]) -> AgentContext:
        return core.context_for(req, turn_info, req.lang, control)

    if state.interrupts:  # a new message (or call) supersedes a pending confirmation
        async for ev in supersede(core, graph, state, req.principal, req.conv_id, seq, context_for):
            yield ev
    inp: dict[str, Any] = {
        "messages": messages(values),
        "owner": req.principal.user_id,
        "turn": {**planned, "lang": req.lang},  # a resume answers in the turn's language
        "pending": [],
    }
    if direct:
        inp["direct"] = True
    again = ask_again(req, planned) if isinstance(req, TurnRequest) else None
    # a turn on an environment that acts as each person, asked by someone with no working
    # link there: the answer offers to connect the account, whatever the model did
    link = None
    if isinstance(req, TurnRequest):
        user, env = req.principal.user_id, planned["selected_env"]
        link = await link_offer(core.registry, user, env, req.lang)
    config = run_config(req.conv_id)
    ctx = context_for(planned)
    async for ev in run_graph(core, graph, inp, config, ctx, seq, ask_again=again, standing=link):
        yield ev


def ask_again(req: TurnRequest, planned: TurnInfo) -> Offer | None:
    """The way on of a turn on a page whose context left tools out: the same message
    again, without the page's context (offered when the model answered without a call)."""
    excluded = planned.get("excluded") or {}
    if req.uicontext is None or "context" not in excluded.values():
        return None
    label = t("ask_without_context", req.lang)
    return Offer(kind="without_context", label=label, request=req.message, clear_context=True)
