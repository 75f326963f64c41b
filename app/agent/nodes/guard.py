"""The guard node: every call of a model's reply (or of a door's direct call) through the
per-call policy (``app.agent.nodes.police``), and a confirmation card opened for each that
needs a person.

A reply with several calls runs only the first that passes, the others set aside with
one note, and a turn shows at most one line for the model's mistakes
(``app.agent.model_mistakes``). The same call with the same arguments twice in one run is
refused (``repeated_call``), never run twice, as is a call that would run as an earlier
one of the run ran (checked, on its environment, its result included:
``app.agent.turn_limits.made_in``). A card names the objects as the person
knows them (``app.agent.names``). Calls that need no person run in the guard's own step
(:func:`guard_node`: one checkpoint fewer); in a stopped turn nothing new runs or asks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import KW_ONLY, dataclass
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.runtime import Runtime

from app.agent.audit import AuditWriter
from app.agent.confirmation import Confirmations
from app.agent.model_mistakes import guard_step, one_call_of
from app.agent.names import KnownNames, learnt, named_line, to_state
from app.agent.nodes import Node
from app.agent.nodes.checked import Checked
from app.agent.nodes.police import Police
from app.agent.nodes.refuse import refuse
from app.agent.nodes.tools import ToolNode
from app.agent.state import AgentContext, AgentState, PendingCall, cancel_calls, is_stopped
from app.agent.turn_limits import Made, call_key, made_in, this_turn
from app.facts import Refusal


@dataclass(eq=False)
class Guard(Police):
    """The per-call policy's parts (:class:`Police`), and the confirmation rows a card
    opens."""

    _: KW_ONLY
    confirmations: Confirmations
    #: a reply with several calls runs only the first that passes (``model_mistakes``);
    #: False: every call runs (a model known to handle parallel calls)
    one_call: bool = True

    def _args_model(self, name: str) -> Any:
        decl = self.tools.get(name)
        return decl.spec.args_model if decl is not None else None

    def _key(self, call: Mapping[str, Any]) -> str:
        """A call's identity in a turn (``app.agent.turn_limits.call_key``)."""
        return call_key(call["name"], call.get("args") or {}, self._args_model(call["name"]))

    async def open(
        self, checked: Checked, ctx: AgentContext, known: KnownNames | None = None
    ) -> None:
        """Ask a person: a new single-use confirmation bound to the checked call. Its card
        names the objects as the person knows them (the page's context, and ``known``: the
        names this turn's results gave; ``app.agent.names``)."""
        spec = self.policy().spec(checked.call["tool_name"])
        line = named_line(spec, checked.call, ctx.uicontext, ctx.lang, known or {})
        if line is not None:
            checked.contract["description"] = checked.metadata["description"] = line
        await self.confirmations.open(checked.call, ctx, checked.contract, checked.metadata)

    async def __call__(self, state: AgentState, ctx: AgentContext) -> dict[str, Any]:
        last = state["messages"][-1]
        assert isinstance(last, AIMessage)
        # the calls made before ``last`` in this run (a door's direct call starts a run)
        turn = this_turn(state["messages"])
        made = made_in(turn[:-1], self._args_model)
        # the names a person knows objects by (cards and ways on; kept with the conversation)
        known = learnt(state.get("names"), ctx.uicontext, ctx.selected_env, turn)
        with guard_step(state["messages"]):
            if self.one_call and len(last.tool_calls) > 1:
                calls = [dict(c) for c in last.tool_calls]
                update = await self._one_of(calls, made, ctx, known)
            else:
                update = await self._each(last, made, ctx, known)
        names = to_state(known)
        if names != (state.get("names") or {}):
            update["names"] = names
        return update

    async def _each(
        self, last: AIMessage, made: Made, ctx: AgentContext, known: KnownNames
    ) -> dict[str, Any]:
        """Every call of the reply, each through the per-call policy."""
        refused: list[ToolMessage] = []
        pending: list[PendingCall] = []
        for call in last.tool_calls:
            outcome = await self._first_time(dict(call), made, ctx)
            if isinstance(outcome, ToolMessage):
                refused.append(outcome)
                continue
            if outcome.call["needs_confirmation"]:
                await self.open(outcome, ctx, known)
            pending.append(outcome.call)
        return {"messages": refused, "pending": pending}

    async def _one_of(
        self, calls: list[dict[str, Any]], made: Made, ctx: AgentContext, known: KnownNames
    ) -> dict[str, Any]:
        """A reply of several calls: the first that passes the guard runs, the others are
        set aside with one note (``app.agent.model_mistakes``)."""

        async def police(call: dict[str, Any]) -> Checked | ToolMessage:
            return await self._first_time(call, made, ctx)

        async def open_card(checked: Checked, ctx: AgentContext) -> None:
            await self.open(checked, ctx, known)

        return await one_call_of(calls, police, ctx, self.audit, open_card)

    async def _first_time(
        self, call: dict[str, Any], made: Made, ctx: AgentContext
    ) -> Checked | ToolMessage:
        """The per-call policy for a call this turn has not made (``made``: their keys):
        the same call again, as written or as it would run (its arguments checked, the
        environment filled in), is refused, never run twice: a loop."""
        key = self._key(call)
        if key in made.asked:
            return await self._repeated(call, ctx)
        outcome = await self.police(call, ctx)
        if isinstance(outcome, Checked):
            p = outcome.call
            model = self._args_model(call["name"])
            as_run = call_key(call["name"], p["tool_args"], model, p.get("env_id"))
            if as_run in made.ran:
                return await self._repeated(call, ctx)
            made.ran.add(as_run)
        made.asked.add(key)
        return outcome

    async def _repeated(self, call: dict[str, Any], ctx: AgentContext) -> ToolMessage:
        refusal = Refusal(
            code="repeated_call",
            tool_name=call["name"],
            message=f"{call['name']} was already called with these arguments in this turn",
            args=dict(call.get("args") or {}),
        )
        return await refuse(self.audit, call, ctx, refusal, kind="not_available", decision="error")


def guard_node(guard: Guard, run_tools: ToolNode, audit: AuditWriter) -> Node:
    """The graph's guard node: the guard's update; the calls that need no person run in
    this step; a stopped turn cancels what the guard let through."""

    async def node(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
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

    return node
