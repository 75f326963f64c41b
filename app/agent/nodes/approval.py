"""The graph's steps of a second person's approval (four-eyes), between the requester's
confirmation and the tools::

    confirm -> recheck -> approval -> await_approval -> approved -> tools (-> model)

* **approval** (:func:`open_requests`): every confirmed call that policy says a second
  person must approve (``[approval] second_person``, :func:`waits_for_second_person`)
  gets its durable request (``app.agent.approvals.ApprovalBook.open``: the row, its audit
  row, the webhook). Side effects live here, in a node of their own, so the interrupt
  that follows never opens a second request when the graph resumes.
* **await_approval** (:func:`await_decisions`): pure; one interrupt per waiting call
  (``kind: awaiting_approval``); the run ends there (``done`` with reason
  ``awaiting_approval``) and the conversation's checkpoint keeps the call. The core
  resumes it with the second person's decision (``app.agent.core.approvals``), or with
  the requester's withdrawal (a new message, a stop: ``app.agent.core.runs.supersede``).
* **approved** (:func:`settle_decisions`): an approved call is policed again as if it
  were new — the requester's CURRENT role (the core rebuilt the run's context from the
  users table), the environment and its tier, a maintenance window, and the preflight —
  and runs only if nothing changed since the request (the same environment, tier and
  risk; the same preflight details, e.g. a deploy's diff); otherwise nothing runs and
  the call's result says what changed (``approval_stale``). A denied call's result is the
  denial with its reason (``approval_denied``); a withdrawn one is cancelled.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

from langchain_core.messages import ToolMessage
from langgraph.graph import END, StateGraph
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from app.agent.approval_record import AWAITING
from app.agent.approvals import ApprovalBook
from app.agent.confirmation import args_hash, raises_the_stakes
from app.agent.nodes.checked import Checked
from app.agent.nodes.guard import Guard
from app.agent.state import AgentContext, AgentState, PendingCall, call_row, cancelled_call, emit
from app.events import ErrorEvent, ToolEndEvent
from app.facts import Refusal
from app.policy import EnvTable, Policy, needs_second_person, tier_of

APPROVED, DENIED, WITHDRAWN, WAITING = "approved", "denied", "withdrawn", "pending"


def call_tier(p: Mapping[str, Any], envs: EnvTable) -> str | None:
    """The tier of the call's environment: as its card showed it, else the resolver's."""
    shown = (p.get("metadata") or {}).get("env_context")
    return str(shown) if shown else tier_of(p.get("env_id"), envs)


def waits_for_second_person(p: Mapping[str, Any], policy: Policy, envs: EnvTable) -> bool:
    """A call its requester confirmed (not yet sent to a second person) that policy says
    a second person must approve too."""
    if p.get("decision") != "confirm" or not p.get("needs_confirmation") or p.get("approval"):
        return False
    level = str(p.get("risk_level") or "dangerous")
    return needs_second_person(policy.approval, level, call_tier(p, envs))


def waiting_value(p: Mapping[str, Any], ctx_user: str) -> dict[str, Any]:
    """The interrupt's value for a call that waits for a second person: what the doors
    show (``AwaitingApprovalEvent``) and what the core checks a decision against."""
    meta = dict(p.get("metadata") or {})
    return {
        "kind": AWAITING,
        "approval_id": p["approval_id"],
        "call_id": p["call_id"],
        "tool_name": p["tool_name"],
        "tool_args": dict(p.get("tool_args") or {}),
        "env_id": p.get("env_id"),
        "env_context": meta.get("env_context"),
        "risk_level": p.get("risk_level") or meta.get("risk_level") or "guarded",
        "requester": ctx_user,
        "expires_at": p.get("approval_expires_at") or "",
        "metadata": meta,
    }


# ---- approval: open the requests ---------------------------------------------------------
async def open_requests(
    book: ApprovalBook,
    guard: Guard,
    state: AgentState,
    ctx: AgentContext,
    policy: Callable[[], Policy],
    envs: Callable[[], EnvTable],
) -> dict[str, Any]:
    """The node's work: a request for each call that needs a second person. A call edited
    before its confirmation has no card yet: it is policed again (with its preflight) for
    the card the approver is shown; a refusal then is its result."""
    pending: list[PendingCall] = []
    refused: list[ToolMessage] = []
    rules, table = policy(), envs()
    for p in state.get("pending") or []:
        p = PendingCall(**p)
        if not waits_for_second_person(p, rules, table):
            pending.append(p)
            continue
        if not p.get("metadata"):
            checked = await guard.police(_call_of(p), ctx)
            if isinstance(checked, ToolMessage):
                refused.append(checked)
                continue
            p["metadata"] = checked.metadata
        bound = args_hash(p["tool_name"], p.get("tool_args") or {}, p.get("env_id"))
        record = await book.open(p, ctx, tier=call_tier(p, table), args_hash=bound)
        p["approval"], p["approval_id"] = WAITING, record.id
        p["approval_expires_at"] = record.expires_at.isoformat(timespec="seconds")
        pending.append(p)
    return {"messages": refused, "pending": pending}


def any_waiting(state: AgentState) -> bool:
    return any(p.get("approval") == WAITING for p in state.get("pending") or [])


# ---- await_approval: the interrupt -----------------------------------------------------
def await_decisions(state: AgentState) -> dict[str, Any]:
    """The node's work (no side effect may precede ``interrupt()``: the node runs again
    from the top on resume). A decision carries ``by`` (the second person); a resume
    without one is the requester's withdrawal."""
    owner = str(state.get("owner") or "")
    pending = [PendingCall(**p) for p in state.get("pending") or []]
    for p in pending:
        if p.get("approval") != WAITING:
            continue
        answer = interrupt(waiting_value(p, owner)) or {}
        by = answer.get("by")
        if by and answer.get("decision") == "approve":
            p["approval"] = APPROVED
        elif by:
            p["approval"] = DENIED
        else:
            p["approval"] = WITHDRAWN
        p["approval_by"] = by
        p["reason"] = answer.get("reason")
    return {"pending": pending}


# ---- approved: police again, or say no ---------------------------------------------------
def _call_of(p: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": p["call_id"], "name": p["tool_name"], "args": dict(p.get("tool_args") or {})}


def what_changed(p: Mapping[str, Any], now: Checked) -> list[str]:
    """What differs between the call as requested and as it would run now."""
    shown = p.get("metadata") or {}
    changed = []
    if raises_the_stakes(p, now.call):
        changed.append("the environment or the risk")
    if now.metadata.get("env_context") != shown.get("env_context"):
        changed.append(f"the environment's tier (now {now.metadata.get('env_context')})")
    if (now.metadata.get("details") or None) != (shown.get("details") or None):
        changed.append("the preflight's findings (what the call would change)")
    return changed


async def _said_no(
    guard: Guard, p: PendingCall, ctx: AgentContext, refusal: Refusal, kind: str
) -> ToolMessage:
    """A call that does not run after its approval decision: its card ends (cancelled),
    the refusal is emitted and audited, and the model reads it as the call's result."""
    call_id, name = p["call_id"], p["tool_name"]
    emit(ToolEndEvent(call_id=call_id, tool_name=name, status="cancelled", result=refusal.message))
    emit(ErrorEvent(code=refusal.code, message=refusal.message, tool_name=name, refusal=refusal))
    await guard.audit.record(
        kind=kind,
        decision="deny",
        reason=refusal.message,
        args={"approval_id": p.get("approval_id")},
        **call_row(ctx, name, p.get("env_id")),
    )
    return ToolMessage(content=refusal.tool_result(), tool_call_id=call_id, name=name)


async def recheck_approved(guard: Guard, p: PendingCall, ctx: AgentContext) -> Any:
    """An approved call policed again with its preflight (see the module docstring): the
    call to run, or its refusal (a ToolMessage)."""
    now = await guard.police(_call_of(p), ctx)
    if isinstance(now, ToolMessage):
        return now  # emitted and audited by the guard (permission, maintenance, preflight)
    changed = what_changed(p, now)
    if not changed:
        return p
    refusal = Refusal(
        code="approval_stale",
        tool_name=p["tool_name"],
        message=f"approved, but {'; '.join(changed)} changed since the request: not run",
        args=dict(p.get("tool_args") or {}),
        env_id=p.get("env_id"),
        errors=changed,
    )
    return await _said_no(guard, p, ctx, refusal, "failed")


async def settle_decisions(guard: Guard, state: AgentState, ctx: AgentContext) -> dict[str, Any]:
    """The node's work: approved calls go on (if nothing changed), others end here."""
    pending: list[PendingCall] = []
    results: list[ToolMessage] = []
    for p in state.get("pending") or []:
        decided = p.get("approval")
        if decided == APPROVED:
            outcome = await recheck_approved(guard, p, ctx)
            (results if isinstance(outcome, ToolMessage) else pending).append(outcome)
        elif decided == DENIED:
            by, why = p.get("approval_by") or "", (p.get("reason") or "").strip() or None
            refusal = Refusal(
                code="approval_denied",
                tool_name=p["tool_name"],
                message=f"denied by the second approver {by}" + (f": {why}" if why else ""),
                args=dict(p.get("tool_args") or {}),
                env_id=p.get("env_id"),
                by=by,
                reason=why,
            )
            results.append(await _said_no(guard, p, ctx, refusal, "cancelled"))
        elif decided == WITHDRAWN:
            results.append(cancelled_call(p, p.get("reason")))
        else:
            pending.append(p)
    return {"messages": results, "pending": pending}


# ---- the three steps on the graph -------------------------------------------------------
def add_steps(
    g: StateGraph[Any, Any, Any, Any], *, book: ApprovalBook, guard: Guard,
    policy: Callable[[], Policy], envs: Callable[[], EnvTable], audited: Callable[[Any], Any],
    direct: Callable[[AgentState], bool], on_loop: Callable[[Any], Any],
) -> None:  # fmt: skip
    """Add ``approval`` -> ``await_approval`` -> ``approved`` to ``g`` (its ``recheck``
    routes to ``approval`` when :func:`waits_for_second_person`); ``audited``: the graph's
    wrapper naming the run's door in the nodes' audit rows; ``direct``: whether the run
    is a door's direct call (it ends after the tools)."""

    async def approval(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
        return await open_requests(book, guard, state, runtime.context, policy, envs)

    async def await_approval(state: AgentState) -> dict[str, Any]:
        return await_decisions(state)  # interrupts: no side effect here

    async def approved(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
        return await settle_decisions(guard, state, runtime.context)

    def after_settled(state: AgentState) -> Literal["tools", "model", "__end__"]:
        if state.get("pending"):
            return "tools"
        return "__end__" if direct(state) else "model"

    def after_approval(state: AgentState) -> Literal["await_approval", "tools", "model", "__end__"]:
        return "await_approval" if any_waiting(state) else after_settled(state)

    g.add_node("approval", audited(approval))
    g.add_node("await_approval", await_approval)
    g.add_node("approved", audited(approved))
    g.add_conditional_edges(
        "approval", on_loop(after_approval), ["await_approval", "tools", "model", END]
    )
    g.add_edge("await_approval", "approved")
    g.add_conditional_edges("approved", on_loop(after_settled), ["tools", "model", END])
