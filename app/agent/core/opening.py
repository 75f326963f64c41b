"""How a turn and a door's direct call open, once the request is checked: the tool set
they offer (``plan_request``), audited (``tool_filtered``), and the conversation's state,
which must be the caller's own (or new); then their run (``run_opened``)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any

from app.agent.audit import AuditWriter
from app.agent.checkpoint import read_before_run
from app.agent.core.prepare import refuse_foreign
from app.agent.core.protocol import Core
from app.agent.core.requests import CallRequest, RequestRefused, TurnRequest, request_row
from app.agent.core.runner import fail, run_graph
from app.agent.core.supersede import supersede
from app.agent.core.turns import plan_turn, run_config
from app.agent.state import TurnInfo
from app.agent.stream import Sequencer
from app.events import Event, Offer
from app.i18n import t
from app.policy import Policy

if TYPE_CHECKING:
    from app.agent.core.control import RunControl

#: The run's new messages, from the conversation's checkpointed values (before the run).
Messages = Callable[[Mapping[str, Any]], list[Any]]


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


async def audit_offer(
    audit: AuditWriter, turn: TurnInfo, row: Mapping[str, Any], *, direct_tool: str | None = None
) -> None:
    """The ``tool_filtered`` row of ``turn``'s tool set (``direct_tool``: the one tool a
    door's direct call asks for; ``row``: who and where)."""
    context = turn["object_type"] or "no"
    offered = f"{len(turn['allowed_tools'])} tools offered for {context} context"
    await audit.record(
        kind="tool_filtered",
        decision="allow",
        tool=direct_tool,
        env=turn["selected_env"],
        reason=offered if direct_tool is None else f"direct call; {offered}",
        args={"excluded": turn.get("excluded")},
        **row,
    )


async def owned_state(core: Core, row: Mapping[str, Any]) -> tuple[Any, Any]:
    """The core's graph and the conversation's checkpointed state (``row``: who and where,
    as audited): the caller's own or a new one; another user's raises the audited 403
    (``refuse_foreign``)."""
    graph = await core.graph()
    state = await read_before_run(graph, run_config(row["conv_id"]))  # handed to the run
    owner = (state.values or {}).get("owner")
    if owner and owner != row["user"]:
        raise await refuse_foreign(core.audit, **row)
    return graph, state


async def run_opened(
    core: Core,
    req: TurnRequest | CallRequest,
    turn: TurnInfo,
    messages: Messages,
    seq: Sequencer,
    control: RunControl | None,
    *,
    owned: Callable[[], object] = lambda: None,
    direct: bool = False,
) -> AsyncIterator[Event]:
    """Run ``req`` (``turn``: its plan) on its conversation once it is the caller's own or
    new (``owned()`` is told then; another user's: the audited 403 as ``error`` +
    ``done``): a pending confirmation is superseded first, then the graph runs from
    ``messages``; ``direct``: a door's direct call (the run ends after the tools)."""
    try:
        graph, state = await owned_state(core, request_row(req))
    except RequestRefused as refused:
        async for ev in fail(seq, refused.event(), core.audit):
            yield ev
        return
    values = state.values or {}
    owned()

    def context_for(turn_info: Mapping[str, Any]) -> Any:
        return core.context_for(req, turn_info, req.lang, control)

    if state.interrupts:  # a new message (or call) supersedes a pending confirmation
        async for ev in supersede(core, graph, state, req.principal, req.conv_id, seq, context_for):
            yield ev
    inp: dict[str, Any] = {
        "messages": messages(values),
        "owner": req.principal.user_id,
        "turn": turn,
        "pending": [],
    }
    if direct:
        inp["direct"] = True
    again = ask_again(req, turn) if isinstance(req, TurnRequest) else None
    config = run_config(req.conv_id)
    async for ev in run_graph(core, graph, inp, config, context_for(turn), seq, ask_again=again):
        yield ev


def ask_again(req: TurnRequest, turn: TurnInfo) -> Offer | None:
    """The way on of a turn on a page whose context left tools out: the same message
    again, without the page's context (offered when the model answered without a call)."""
    excluded = turn.get("excluded") or {}
    if req.uicontext is None or "context" not in excluded.values():
        return None
    label = t("ask_without_context", req.lang)
    return Offer(kind="without_context", label=label, request=req.message, clear_context=True)
