"""The agent graph: model -> guard -> (confirm -> (recheck) -> (approval)) -> tools -> model ...

``recheck`` runs every call a person confirmed, edited or not, through the guard's
per-call policy again (``app.agent.recheck``: the caller's current role, the environment,
maintenance, the risk); one a second person must approve then waits for them
(``app.agent.approval_nodes``); a stopped turn ends through its own nodes
(``app.agent.state``: stopping), so its checkpoint stays consistent.

``build_graph(*, model, checkpointer, settings, db, audit, confirmations, policy, envs,
deps_factory, tools=None, decls=TOOLS, ...)`` is a factory: the agent core builds one graph
per event loop from its parts (``decls``: its rules' tools); tests hand the
core their own tool implementations (``tools``: name → function, replacing the declared
ones), preflight, deps factory and environment table.
A door may call one tool without the model (``app.agent.core.runs``): the core puts an
``AIMessage`` proposing that call into the conversation and sets ``direct`` (checkpointed,
so a resume from any door ends there too). The graph then starts at the guard (the same
guard -> confirm -> tools seam, the same audit rows) and ends after the tools instead of
asking the model again.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from app.agent import approval_nodes
from app.agent.approvals import ApprovalBook
from app.agent.audit import AuditWriter, audit_scope
from app.agent.budget import InputBudget
from app.agent.confirmation import Confirmations
from app.agent.guard import DepsFactory, Guard, PreflightOverride
from app.agent.model_step import (
    PROBLEM_KEY,
    SYSTEM_PROMPT,
    ask_model,
    ended,
    prompt_messages,
    tool_schema,
    turn_limit,
)
from app.agent.recheck import EDIT, is_answered, recheck_edits
from app.agent.state import (
    AgentContext,
    AgentState,
    Stopped,
    call_row,
    cancel_calls,
    cancellable,
    is_stopped,
    stopped_reply,
)
from app.agent.tool_node import ToolNode
from app.policy import EnvTable, Policy
from app.settings import Settings
from app.store.db import Database
from app.superset.registry import EnvironmentRegistry
from app.tasks.worker import TaskRunner
from app.tools import TOOLS
from app.tools.kit import Tool, ToolDeps, ToolFn


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


#: The tool as a model is offered it (``app.agent.model_step.tool_schema``).
openai_tool_schema = tool_schema


class BoundModels:
    """``model`` with a tool set bound, made once per tool set (a turn offers the same
    few sets again and again) and again when the policy's catalog changes."""

    LIMIT = 64

    def __init__(self, model: BaseChatModel) -> None:
        self.model = model
        self._catalog: Mapping[str, Any] | None = None
        self._bound: dict[tuple[str, ...], tuple[Any, int]] = {}

    def __call__(self, catalog: Mapping[str, Any], names: tuple[str, ...]) -> Any:
        return self.bound(catalog, names)[0]

    def bound(self, catalog: Mapping[str, Any], names: tuple[str, ...]) -> tuple[Any, int]:
        """The bound model and how many characters its tools add to every call."""
        if catalog is not self._catalog or len(self._bound) >= self.LIMIT:
            self._catalog, self._bound = catalog, {}
        found = self._bound.get(names)
        if found is None:
            schemas = [openai_tool_schema(catalog[n]) for n in names if n in catalog]
            size = len(json.dumps(schemas, ensure_ascii=False))
            found = self._bound[names] = (self.model.bind_tools(schemas), size)
        return found


Node = Callable[[AgentState, Runtime[AgentContext]], Awaitable[dict[str, Any]]]
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


def tool_deps_factory(
    *,
    settings: Settings,
    registry: EnvironmentRegistry,
    db: Database,
    tasks: TaskRunner,
    tools: Mapping[str, Tool] = TOOLS,
) -> DepsFactory:
    """The product's deps factory: a call's ToolDeps from the app's parts, the environment
    the guard resolved for it, the page's, the policy, the tools in force."""

    def make(
        *,
        ctx: AgentContext,
        env_id: str | None,
        env_source: str,
        selected_env: str | None,
        policy: Policy,
        task_id: str | None,
        progress: Any,
    ) -> ToolDeps:
        return ToolDeps(
            settings=settings,
            user_id=ctx.user_id,
            role=ctx.role,
            conv_id=ctx.conv_id,
            env_id=env_id,
            registry=registry,
            task_id=task_id,
            progress=progress,
            object_type=ctx.object_type,
            policy=policy,
            env_source=env_source,
            selected_env=selected_env,
            lang=ctx.lang,
            db=db,
            tasks=tasks,
            tools=tools,
        )

    return make


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
    bound = BoundModels(model)

    async def model_node(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
        ctx = runtime.context
        problem: str | None = None
        limit = turn_limit(state["messages"])
        if is_stopped(ctx):  # a stopped turn ends here, without asking the model
            reply = stopped_reply(ctx)
        elif limit is not None:  # the turn ends here: a loop, a repeated mistake, the cap
            reply, problem = ended(limit[0], ctx.lang, limit[1]), f"{limit[0]}: {limit[1]}"
        else:
            offered, tools_chars = bound.bound(policy().catalog, tuple(ctx.allowed_tools))
            prompt = prompt_messages(state["messages"], ctx.facts, ctx.uicontext, system)
            budget = InputBudget(settings.model_input_max_chars, tools_chars)
            work = ask_model(offered, prompt, ctx.allowed_tools, ctx.lang, budget)
            try:
                reply, problem = await cancellable(ctx, work)
            except Stopped:
                reply = stopped_reply(ctx)
        if problem is not None:  # what the model got wrong, ended or repaired: audited
            ending = reply.response_metadata.get(PROBLEM_KEY)
            await audit.record(
                kind="failed" if ending else "retried",
                decision="error",
                reason=f"model: {problem}",
                **call_row(ctx, None, ctx.selected_env),
            )
        if state.get("direct"):  # the model answers: a chat turn again
            return {"messages": [reply], "direct": False}
        return {"messages": [reply]}  # (an unchanged channel is not written)

    async def guard_node(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
        update = await guard(state, runtime.context)
        if is_stopped(runtime.context):  # nothing new runs or asks in a stopped turn
            cancelled = await cancel_calls(update.get("pending") or [], runtime.context, audit)
            return {"messages": [*update["messages"], *cancelled], "pending": []}
        pending = update.get("pending") or []
        if pending and not any(p.get("needs_confirmation") for p in pending):
            # nothing to ask a person: run the calls in this step (one checkpoint fewer)
            ran = await run_tools({"pending": pending}, runtime.context)
            update = {"messages": [*update["messages"], *ran["messages"]], "pending": []}
        return update

    async def confirm_node(state: AgentState) -> dict[str, Any]:
        # No side effect may precede interrupt(): the node re-runs from the top on resume.
        pending = [dict(p) for p in state.get("pending") or []]
        for p in pending:
            if p.get("needs_confirmation") and p.get("decision") is None:
                answer = interrupt(
                    {
                        "confirmation_id": p["confirmation_id"],
                        "call_id": p["call_id"],
                        "metadata": p.get("metadata") or {},
                        "countdown_s": p.get("countdown_s", 0),
                        "expires_at": p.get("expires_at", ""),
                    }
                )
                p["decision"] = answer.get("decision", "deny")
                p["reason"] = answer.get("reason")
                if p["decision"] == "confirm" and answer.get("args") is not None:
                    p["decision"], p["edited_args"] = EDIT, dict(answer["args"])
        return {"pending": pending}

    async def recheck_node(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
        return await recheck_edits(guard, state, runtime.context)

    async def tools_node(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
        return await run_tools(state, runtime.context)

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
        if any(approval_nodes.waits_for_second_person(p, rules, table) for p in pending):
            return "approval"  # four-eyes: a second person approves before it runs
        if pending:
            return "tools"
        return "__end__" if is_direct(state) else "model"

    g = StateGraph(AgentState, context_schema=AgentContext)
    g.add_node("model", model_node)
    g.add_node("guard", audited_by_door(guard_node))
    g.add_node("confirm", confirm_node)
    g.add_node("recheck", audited_by_door(recheck_node))
    g.add_node("tools", audited_by_door(tools_node))
    approval_nodes.add_steps(
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
