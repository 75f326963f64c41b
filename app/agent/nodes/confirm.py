"""The confirm and recheck nodes: a person's answer to a card (:func:`confirm_node`, a
LangGraph interrupt), then every answer "confirm" checked again before anything runs, and
edit before approving (docs/contract.md, decision 8).

An answer without an edit (:func:`recheck_answer`) passes the guard's per-call policy
again for the caller's CURRENT role (``prepare_resume`` reads it from the users table, not
the old token's claim): a demoted admin's confirmation is ``permission_denied``; the
environment and its tier, a maintenance window that started since the card, and the risk
are checked too (no preflight: the card showed it).

A confirmation answered with edited arguments: the edited call passes the guard's
per-call policy again — the same function, :meth:`app.agent.nodes.police.Police.police`:
permission, this turn's tool set, the args model, the environment and its tier (the one
resolver), maintenance, the confirmation contract and the preflight. Then:

* refused (e.g. ``permission_denied``, invalid arguments, a maintenance window, a failed
  preflight) -> the refusal is the call's result; nothing runs;
* the same environment and a risk level no higher -> it runs, under the confirmation the
  person just gave, with the edited arguments;
* a higher risk level, or another environment (the call's own, or any environment its
  arguments name, e.g. a deploy's ``source_env``; or its tier) -> it does not run: a NEW
  confirmation (new id; a dangerous one starts its countdown again) is asked. The old id
  was spent when it was answered (``prepare_resume``).

The run is bound to the edit: the consumed confirmation row holds the hash of the edited
arguments (``app.agent.confirmation``), and :func:`recheck_edits` runs nothing else.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from app.agent.confirmation import raises_the_stakes
from app.agent.nodes import Node
from app.agent.nodes.checked import Checked
from app.agent.nodes.guard import Guard
from app.agent.state import AgentContext, AgentState, PendingCall, call_row, emit
from app.events import ErrorEvent

EDIT = "edit"


def is_answered(p: PendingCall) -> bool:
    """A call a person confirmed, with or without an edit (not a call that needed no one)."""
    if p.get("decision") == EDIT:
        return True
    return p.get("decision") == "confirm" and bool(p.get("needs_confirmation"))


async def _unbound(guard: Guard, p: PendingCall, ctx: AgentContext) -> ToolMessage:
    message = "the edited arguments do not match the confirmation that approved them"
    emit(ErrorEvent(code="confirmation_mismatch", message=message, tool_name=p["tool_name"]))
    await guard.audit.record(
        kind="confirmation_refused",
        decision="refused",
        reason=message,
        args={"shown": p.get("tool_args"), "edited": p.get("edited_args")},
        **call_row(ctx, p["tool_name"], p.get("env_id")),
    )
    return ToolMessage(content=f"ERROR: {message}", tool_call_id=p["call_id"], name=p["tool_name"])


def _stakes_raised(p: PendingCall, outcome: Checked) -> bool:
    """:func:`raises_the_stakes`, or the same environment now of another tier (e.g. its
    configured tier changed between the card and the answer)."""
    shown = (p.get("metadata") or {}).get("env_context")
    return raises_the_stakes(p, outcome.call) or outcome.metadata.get("env_context") != shown


async def _ask_again(
    guard: Guard, call: dict[str, Any], ctx: AgentContext
) -> Checked | ToolMessage:
    """A NEW confirmation for ``call`` (checked again, with its preflight): it waits."""
    outcome = await guard.police(call, ctx)
    if isinstance(outcome, ToolMessage):
        return outcome
    outcome.call["needs_confirmation"], outcome.call["decision"] = True, None
    await guard.open(outcome, ctx)  # new id; audited as confirm_requested
    return outcome


async def recheck_answer(
    guard: Guard, p: PendingCall, ctx: AgentContext
) -> PendingCall | ToolMessage:
    """An answer "confirm" WITHOUT an edit, checked again at resume (a role may change while
    a card waits): the guard's per-call policy for the caller's current role
    (``prepare_resume`` read it from the users table), this turn's tool set, the arguments,
    the environment and its tier, the maintenance window and the risk — without the
    preflight (the card showed it). A refusal is the call's result; another environment or
    tier, or a higher risk, asks a new confirmation; else the call runs under the one just
    given."""
    call = {"id": p["call_id"], "name": p["tool_name"], "args": dict(p.get("tool_args") or {})}
    outcome = await guard.police(call, ctx, preflight=False)
    if isinstance(outcome, ToolMessage):
        return outcome
    if not _stakes_raised(p, outcome):
        return p
    again = await _ask_again(guard, call, ctx)
    return again if isinstance(again, ToolMessage) else again.call


async def recheck_edit(guard: Guard, p: PendingCall, ctx: AgentContext) -> Checked | ToolMessage:
    """One edited call (its binding already checked) through the per-call policy, then
    the comparison above. A
    :class:`Checked` whose call has ``decision`` "confirm" runs now; one with ``decision``
    None waits for its new confirmation (already opened)."""
    edited = dict(p.get("edited_args") or {})
    call = {"id": p["call_id"], "name": p["tool_name"], "args": edited}
    outcome = await guard.police(call, ctx)
    if isinstance(outcome, ToolMessage):
        return outcome
    new = outcome.call
    if _stakes_raised(p, outcome):
        new["needs_confirmation"], new["decision"] = True, None
        await guard.open(outcome, ctx)  # new id; audited as confirm_requested (edited args)
        return outcome
    new["decision"], new["confirmation_id"] = "confirm", p.get("confirmation_id")
    new["reason"] = p.get("reason")
    return outcome


def _with_edits(messages: list[Any], edits: dict[str, dict[str, Any]]) -> list[AIMessage]:
    """The AIMessage that proposed the edited calls, with their arguments as the person
    edited them (same message id: the checkpoint's copy is replaced in place), so the
    model, the conversation view and its cards read what was approved — LangChain's
    human-in-the-loop "edit" does the same."""
    for message in reversed(messages):
        if isinstance(message, AIMessage) and any(tc["id"] in edits for tc in message.tool_calls):
            calls = [
                {**tc, "args": edits[tc["id"]]} if tc["id"] in edits else tc
                for tc in message.tool_calls
            ]
            return [message.model_copy(update={"tool_calls": calls})]
    return []


async def recheck_edits(guard: Guard, state: AgentState, ctx: AgentContext) -> dict[str, Any]:
    """The graph node's work: every pending call a person confirmed, edited or not, is
    checked again (see the module docstring); the others pass through unchanged."""
    refused: list[ToolMessage] = []
    pending: list[PendingCall] = []
    edits: dict[str, dict[str, Any]] = {}
    for p in state.get("pending") or []:
        if is_answered(p) and p.get("decision") != EDIT:
            answer = await recheck_answer(guard, p, ctx)
            if isinstance(answer, ToolMessage):
                refused.append(answer)
            else:
                pending.append(answer)
            continue
        if p.get("decision") != EDIT:
            pending.append(p)
            continue
        if not await guard.confirmations.bound(p):
            refused.append(await _unbound(guard, p, ctx))
            continue
        edits[p["call_id"]] = dict(p.get("edited_args") or {})
        outcome = await recheck_edit(guard, p, ctx)
        if isinstance(outcome, ToolMessage):
            refused.append(outcome)
        else:
            pending.append(outcome.call)
    rewritten = _with_edits(list(state.get("messages") or []), edits) if edits else []
    return {"messages": [*rewritten, *refused], "pending": pending}


async def confirm_node(state: AgentState) -> dict[str, Any]:
    """The graph's confirm node: each call waiting for a person is an interrupt; the
    answer (confirm, deny, or confirm with edited arguments) is set on the call."""
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


def recheck_node(guard: Guard) -> Node:
    """The graph's recheck node: every answered call policed again (:func:`recheck_edits`)."""

    async def node(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
        return await recheck_edits(guard, state, runtime.context)

    return node
