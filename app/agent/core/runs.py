"""How the core runs a checked request, top to bottom (``AgentCore`` calls these).

A **turn** (:func:`turn`) and a door's **direct call** (:func:`call`) open the same way
(:func:`run_opened`): the tools the request is offered (RBAC, then the page's context;
:func:`plan_turn`), audited (``tool_filtered``); the conversation, which must be the
caller's own or new; a confirmation still pending is withdrawn first (:func:`supersede`:
spent, its call cancelled); then the graph runs from the new messages and its output
becomes typed events (``runner.run_graph``). A direct call enters at the guard and ends
after the tools. An **answer** (:func:`resume`) to a confirmation, already consumed by
``prepare_resume``, is audited and resumes the graph.

After a run (:func:`settle`) the conversation list's badge follows the checkpoint, and a
stopped run leaves no confirmation waiting (:func:`withdraw`).

Last, what a run of the graph is asked under: the turn's tool set (:func:`plan_turn`: the
pipeline, RBAC then the page's context), the per-run context the nodes read
(:func:`build_context`, rebuilt for a resume from the checkpointed turn); and the same
pipeline's answer for a door's tool list (:func:`offered_tools`: MCP ``tools/list``;
:func:`tool_listing`: ``GET /api/agent/tools``).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.types import Command

from app.agent.acting import link_offer
from app.agent.approvals import withdraw_waiting
from app.agent.audit import AuditWriter, audit_scope
from app.agent.core import conversations
from app.agent.core.checks import refuse_foreign
from app.agent.core.conversations import run_config
from app.agent.core.edits import shown_and_edited
from app.agent.core.requests import (
    CallRequest,
    DoorRequest,
    HistoryItem,
    RequestRefused,
    ResumeRequest,
    TurnRequest,
    request_row,
)
from app.agent.core.runner import fail, run_graph
from app.agent.model_step import DIRECT_KEY
from app.agent.state import AgentContext, Sequencer, TurnInfo
from app.auth import Principal
from app.context import UIContext
from app.events import Event, Offer, TurnStartEvent
from app.facts import TurnFacts
from app.i18n import detect_lang, t
from app.policy import Exclusion, PipelineResult, Policy, build_tool_pipeline
from app.reasoning import cot_logger
from app.tools.kit import Tool
from app.vocab import Risk

if TYPE_CHECKING:
    from app.agent.core.agent import AgentCore
    from app.agent.core.control import RunControl

log = logging.getLogger("ss_tools.agent")

SUPERSEDED = "superseded by a new message"
WITHDRAWN = "withdrawn: the turn was stopped"
AWAITING = "awaiting_confirmation"

#: The run's new messages, from the conversation's checkpointed values (before the run).
Messages = Callable[[Mapping[str, Any]], list[Any]]
#: The run's context, for the checkpointed turn it continues.
ContextFor = Callable[[Mapping[str, Any]], AgentContext]


def turn_lang(values: Mapping[str, Any]) -> str:
    """The language of the conversation's last turn: as it was checkpointed, else the
    language of its last message (a checkpoint from before the turn kept it)."""
    kept = (values.get("turn") or {}).get("lang")
    return str(kept) if kept else detect_lang(last_human_text(values.get("messages") or []))


# ---- a turn, a direct call, an answer -------------------------------------------------
def plan_request(
    policy: Policy, req: TurnRequest | CallRequest, env_id: str | None = None
) -> TurnInfo:
    """The tools ``req`` is offered (``plan_turn``) under its page context, on ``env_id``
    when the request names one, else on the page's environment."""
    ui = req.uicontext
    role = req.principal.role
    if ui is None:
        return plan_turn(policy, role, None, env_id, None)
    return plan_turn(policy, role, ui.objectType, env_id or ui.envId, ui.model_dump())


async def turn(core: AgentCore, req: TurnRequest, control: RunControl) -> AsyncIterator[Event]:
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
    core: AgentCore, req: CallRequest, control: RunControl | None = None
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


async def resume(core: AgentCore, req: ResumeRequest, control: RunControl) -> AsyncIterator[Event]:
    """Continue the graph after ``prepare_resume`` consumed the confirmation: audit the
    answer (confirmed or cancelled, edited arguments beside the ones on the card), then
    resume; every confirmed answer is policed again in the graph (``app.agent.recheck``)."""
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


async def owned_state(core: AgentCore, row: Mapping[str, Any]) -> tuple[Any, Any]:
    """The core's graph and the conversation's checkpointed state (``row``: who and where,
    as audited): the caller's own or a new one; another user's raises the audited 403."""
    graph = await core.graph()
    state = await graph.aget_state(run_config(row["conv_id"]))
    owner = (state.values or {}).get("owner")
    if owner and owner != row["user"]:
        raise await refuse_foreign(core.audit, **row)
    return graph, state


async def run_opened(
    core: AgentCore,
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
    async for ev in run_graph(
        core, graph, inp, config, ctx, seq, ask_again=again, standing=link
    ):
        yield ev


def ask_again(req: TurnRequest, planned: TurnInfo) -> Offer | None:
    """The way on of a turn on a page whose context left tools out: the same message
    again, without the page's context (offered when the model answered without a call)."""
    excluded = planned.get("excluded") or {}
    if req.uicontext is None or "context" not in excluded.values():
        return None
    label = t("ask_without_context", req.lang)
    return Offer(kind="without_context", label=label, request=req.message, clear_context=True)


async def supersede(
    core: AgentCore,
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


# ---- the bookkeeping around a run ------------------------------------------------------
def note_turn(core: AgentCore, req: TurnRequest, control: RunControl) -> None:
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


async def settle(core: AgentCore, control: RunControl, req: DoorRequest) -> None:
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
    core: AgentCore, graph: Any, state: Any, req: DoorRequest, control: RunControl
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


# ---- what a run is asked under: its tool set and context ----------------------------
def plan_turn(
    policy: Policy,
    role: str,
    object_type: str | None,
    selected_env: str | None,
    uicontext: dict[str, Any] | None,
) -> TurnInfo:
    """The tools this turn offers (RBAC, then the page's context) and what it was asked
    under; checkpointed with the conversation so a resume rebuilds the same context."""
    result = build_tool_pipeline(
        list(policy.catalog.values()),
        role,
        object_type,
        policy=policy,
        log=lambda exclusion: cot_logger.reason(str(exclusion)),
    )
    return TurnInfo(
        object_type=object_type,
        selected_env=selected_env,
        uicontext=uicontext,
        allowed_tools=[t.name for t in result.tools],
        excluded={e.name: e.layer for e in result.excluded},
    )


def build_context(
    principal: Principal,
    conv_id: str,
    turn: Mapping[str, Any],
    lang: str,
    *,
    environments: Mapping[str, str],
    channel: str,
    client: str | None = None,
) -> AgentContext:
    """The run's context. ``environments``: env id -> tier (already resolved)."""
    raw = turn.get("uicontext")
    # validated by prepare_turn before it was checkpointed: trusted, not checked again
    uictx = UIContext.model_construct(**raw) if isinstance(raw, Mapping) else None
    selected = turn.get("selected_env")
    return AgentContext(
        user_id=principal.user_id,
        role=principal.role,
        conv_id=conv_id,
        allowed_tools=list(turn.get("allowed_tools") or []),
        excluded=dict(turn.get("excluded") or {}),
        object_type=turn.get("object_type"),
        selected_env=selected,
        uicontext=uictx,
        lang=lang,
        facts=TurnFacts(selected, dict(environments), lang),
        channel=channel,
        client=client,
    )


def history_messages(history: tuple[HistoryItem, ...]) -> list[BaseMessage]:
    """Earlier text of a conversation the checkpoint does not know (seeds a new one)."""
    return [
        HumanMessage(content=h.text) if h.role == "user" else AIMessage(content=h.text)
        for h in history
    ]


def last_human_text(messages: list[Any]) -> str:
    for m in reversed(messages):
        if isinstance(m, HumanMessage):
            return str(m.content)
    return ""


@dataclass(frozen=True)
class OfferedTool:
    name: str
    description: str  # what the model reads
    input_schema: dict[str, Any]  # the args model's JSON schema
    risk: Risk  # the tool's own risk (a call's may be higher, e.g. parsed SQL)
    idempotent: bool
    open_world: bool


def offered_tools(
    policy: Policy,
    principal: Principal,
    uicontext: UIContext | None,
    tools: Mapping[str, Tool],
) -> list[OfferedTool]:
    """The caller's tools for this context under ``policy`` (the core's
    ``rules.policy()``), in catalog order, with the hints of their declarations in
    ``tools`` (the core's ``rules.tools``)."""
    object_type = uicontext.objectType if uicontext is not None else None
    env_id = uicontext.envId if uicontext is not None else None
    turn = plan_turn(policy, principal.role, object_type, env_id, None)
    catalog = policy.catalog
    offered = []
    for name in turn["allowed_tools"]:
        spec, decl = catalog[name], tools.get(name)
        offered.append(
            OfferedTool(
                name=name,
                description=spec.description,
                input_schema=spec.args_model.model_json_schema(),
                risk=spec.risk,
                idempotent=decl.spec.idempotent if decl is not None else False,
                open_world=decl.spec.open_world if decl is not None else True,
            )
        )
    return offered


def tool_listing(policy: Policy, role: str | None, object_type: str | None) -> PipelineResult[Any]:
    """What ``role`` would be offered on a page of ``object_type`` and why each other tool
    is left out (``GET /api/agent/tools``): the same pipeline a turn runs."""

    def logged(ex: Exclusion) -> None:
        cot_logger.reason("tool excluded", tool=ex.name, layer=ex.layer, why=ex.reason, role=role)

    return build_tool_pipeline(
        list(policy.catalog.values()), role, object_type, policy=policy, log=logged
    )
