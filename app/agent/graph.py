"""The agent graph: model -> guard -> (confirm -> (recheck) -> (approval)) -> tools -> model ...

This module wires the nodes and their edges; the node bodies are in ``app.agent.nodes``
(model, guard, confirm, approval, tools).

``recheck`` runs every call a person confirmed, edited or not, through the guard's
per-call policy again (``app.agent.nodes.confirm``: the caller's current role, the environment,
maintenance, the risk); one a second person must approve then waits for them
(``app.agent.nodes.approval``); a stopped turn ends through its own nodes
(``app.agent.state``: stopping), so its checkpoint stays consistent.

``build_graph(*, model, checkpointer, settings, db, audit, confirmations, policy, envs,
deps_factory, tools=None, decls=TOOLS, ...)`` is a factory: the agent core builds one graph
per event loop from its parts (``decls``: its rules' tools); tests hand the
core their own tool implementations (``tools``: name → function, replacing the declared
ones), preflight, deps factory and environment table. ``ranker`` (the composition root's
reading of which tools a request most likely asks for) narrows what each model call is
offered (``app.agent.tool_offer``); the guard still checks every call against the turn's
allowed tools, and with ``Settings.llm_parallel_tool_calls`` off runs one call a reply.
``reporter`` (the composition root's words for a result) answers a turn the model ended
by asking again for a call whose result it has (``app.agent.turn_limits``).
A door may call one tool without the model (``app.agent.core.runs``): the core puts an
``AIMessage`` proposing that call into the conversation and sets ``direct`` (checkpointed,
so a resume from any door ends there too). The graph then starts at the guard (the same
guard -> confirm -> tools seam, the same audit rows) and ends after the tools instead of
asking the model again.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from app.agent.approvals import ApprovalBook
from app.agent.audit import AuditWriter, audit_scope
from app.agent.confirmation import Confirmations
from app.agent.nodes import Node, approval
from app.agent.nodes.checked import PreflightOverride
from app.agent.nodes.confirm import confirm_node, is_answered, recheck_node
from app.agent.nodes.guard import Guard, guard_node
from app.agent.nodes.model import model_node
from app.agent.nodes.tool_deps import DepsFactory
from app.agent.nodes.tools import ToolNode, tools_node
from app.agent.prompt import SYSTEM_PROMPT
from app.agent.state import AgentContext, AgentState
from app.agent.tool_offer import Ranker
from app.agent.turn_limits import Reporter
from app.policy import EnvTable, Policy
from app.settings import Settings
from app.store.db import Database
from app.superset.registry import EnvironmentRegistry
from app.tools import TOOLS
from app.tools.kit import Tool, ToolFn


def is_direct(state: AgentState) -> bool:
    """Whether this run is a door's direct call (no model before or after it)."""
    return bool(state.get("direct"))


def entry(state: AgentState) -> Literal["model", "guard"]:
    """A direct call goes straight to the guard; a person's message to the model."""
    messages = state.get("messages") or []
    last = messages[-1] if messages else None
    if is_direct(state) and isinstance(last, AIMessage) and last.tool_calls:
        return "guard"
    return "model"


def after_tools(state: AgentState) -> Literal["model", "__end__"]:
    """The model reads the tools' results, except after a direct call."""
    return "__end__" if is_direct(state) else "model"


#: where a rechecked answer goes (a second person's approval among them)
Rechecked = Literal["confirm", "approval", "tools", "model", "__end__"]


def on_loop(route: Callable[[AgentState], str]) -> Callable[[AgentState], Awaitable[str]]:
    """A router LangGraph runs on the event loop: it sends a plain function to a worker
    thread (one thread hop per edge taken, a wait whenever the CPU is busy)."""

    @functools.wraps(route)
    async def run(state: AgentState) -> str:
        return route(state)

    return run


def audited_by_door(node: Node) -> Any:  # a node LangGraph calls with its runtime
    """Audit rows written inside ``node`` record the run's door (channel, client)."""

    @functools.wraps(node)
    async def run(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
        ctx = runtime.context
        with audit_scope(ctx.channel, ctx.client, ctx.approval_id):
            return await node(state, runtime)

    return run


def build_graph(
    *,
    model: BaseChatModel,
    checkpointer: Any,
    settings: Settings,
    db: Database,
    audit: AuditWriter,
    confirmations: Confirmations,
    policy: Callable[[], Policy],
    envs: Callable[[], EnvTable],
    deps_factory: DepsFactory,
    tools: dict[str, ToolFn] | None = None,
    preflight: PreflightOverride | None = None,
    system_prompt: Any = None,
    decls: Mapping[str, Tool] = TOOLS,
    registry: EnvironmentRegistry | None = None,
    ranker: Ranker | None = None,
    reporter: Reporter | None = None,
) -> Any:
    guard = Guard(
        decls,
        policy=policy,
        envs=envs,
        deps_factory=deps_factory,
        db=db,
        confirmations=confirmations,
        audit=audit,
        preflight=preflight,
        one_call=not settings.llm_parallel_tool_calls,
        undo_days=settings.undo_retention_days,
        registry=registry,
    )
    run_tools = ToolNode(
        decls,
        policy=policy,
        deps_factory=deps_factory,
        settings=settings,
        audit=audit,
        fns=tools,
        registry=registry,
    )
    system = SYSTEM_PROMPT if system_prompt is None else system_prompt
    ask = model_node(
        model=model,
        policy=policy,
        settings=settings,
        audit=audit,
        system=system,
        ranker=ranker,
        reporter=reporter,
    )

    def after_model(state: AgentState) -> Literal["guard", "__end__"]:
        last = state["messages"][-1]
        return "guard" if isinstance(last, AIMessage) and last.tool_calls else "__end__"

    def after_guard(state: AgentState) -> Literal["confirm", "tools", "model", "__end__"]:
        pending = state.get("pending") or []
        if any(p.get("needs_confirmation") for p in pending):
            return "confirm"
        if pending:
            return "tools"
        return "__end__" if is_direct(state) else "model"

    def after_confirm(state: AgentState) -> Literal["recheck", "tools"]:
        answered = any(is_answered(p) for p in state.get("pending") or [])
        return "recheck" if answered else "tools"  # every "confirm" is checked again

    def after_recheck(state: AgentState) -> Rechecked:
        pending = state.get("pending") or []
        if any(p.get("needs_confirmation") and p.get("decision") is None for p in pending):
            return "confirm"  # an edit that raised the stakes: a new confirmation
        rules, table = policy(), envs()
        if any(approval.waits_for_second_person(p, rules, table) for p in pending):
            return "approval"  # four-eyes: a second person approves before it runs
        if pending:
            return "tools"
        return "__end__" if is_direct(state) else "model"

    g = StateGraph(AgentState, context_schema=AgentContext)
    g.add_node("model", ask)
    g.add_node("guard", audited_by_door(guard_node(guard, run_tools, audit)))
    g.add_node("confirm", confirm_node)
    g.add_node("recheck", audited_by_door(recheck_node(guard)))
    g.add_node("tools", audited_by_door(tools_node(run_tools)))
    approval.add_steps(
        g, book=ApprovalBook(db, audit, settings), guard=guard, policy=policy, envs=envs,
        audited=audited_by_door, direct=is_direct, on_loop=on_loop,
    )  # fmt: skip
    g.add_conditional_edges(START, on_loop(entry), ["model", "guard"])  # guard: a direct call
    g.add_conditional_edges("model", on_loop(after_model), ["guard", END])
    g.add_conditional_edges("guard", on_loop(after_guard), ["confirm", "tools", "model", END])
    g.add_conditional_edges("confirm", on_loop(after_confirm), ["recheck", "tools"])
    g.add_conditional_edges(
        "recheck", on_loop(after_recheck), ["confirm", "approval", "tools", "model", END]
    )
    g.add_conditional_edges("tools", on_loop(after_tools), ["model", END])  # END: a direct call
    return g.compile(checkpointer=checkpointer)
