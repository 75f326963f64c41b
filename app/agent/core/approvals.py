"""A second person's decision on a call that waits for one (four-eyes), for every door:
a decision (:func:`decide`) and the requester's withdrawal (:func:`withdraw`); the queue
(:func:`list_approvals`, :func:`approval_status`, :func:`count_waiting`) is
``app.agent.core.approval_queue``'s, named here too.

Rules that no door can bend, checked here in this order (each refusal a
:class:`RequestRefused`, audited ``approval_refused`` before it is raised):

* the approver is who authentication says, as the users table says NOW (a page session,
  a token — any of theirs — or an MCP session: the same principal) and has one of the
  policy's ``approver_roles`` (403 ``not_an_approver``);
* never the requester (403 ``own_request``): identity is compared by ``user_id``, which
  for an identity provider's users is namespaced (``issuer#subject``);
* the request exists (404), waits (409 ``already_decided``; 410 ``expired``), and a
  decision is single use: a conditional UPDATE, so of two racing approvers exactly one
  wins; it is bound to the argument hash of the call waiting in the conversation.

A decision resumes the REQUESTER's conversation under its run control (one run per
conversation, across replicas: ``AgentCore._controlled``, as a resume), on whichever
replica took it, with the requester's principal as the users table says now (the call
runs as them; their current role is policed again, with the environment's tier, a
maintenance window and the preflight: ``app.agent.nodes.approval``). Its events land in
the requester's conversation (its checkpoint; the requester's open page picks them up);
the approver gets the outcome. The run takes one of the APPROVER's running slots, unpaced
(the request that arrives is theirs; the requester's pace never blocks an approval). A
denial takes no slot; its reason reaches the requester's conversation.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from langgraph.types import Command

from app.agent.approval_record import ApprovalRecord, is_approval
from app.agent.confirmation import args_hash
from app.agent.core.approval_queue import (
    approval_status,
    book_of,
    count_waiting,
    list_approvals,
    named_request,
    refused,
    still_waiting,
)
from app.agent.core.check_resume import MAX_REASON_CHARS
from app.agent.core.checks import authenticate, is_text
from app.agent.core.control import opened
from app.agent.core.conversations import run_config
from app.agent.core.requests import Caller, DoorRequest, Slot
from app.agent.core.runner import run_graph
from app.agent.core.turn_plan import turn_lang
from app.agent.state import Sequencer
from app.auth import Principal
from app.auth.external_ids import is_external_user_id
from app.events import ErrorEvent, Event, PermissionDeniedEvent, ToolEndEvent, ToolTimeoutEvent
from app.policy import may_approve

__all__ = [
    "DecisionRun",
    "approval_status",
    "count_waiting",
    "decide",
    "list_approvals",
    "outcome_of",
    "withdraw",
]

if TYPE_CHECKING:
    from app.agent.core.agent import AgentCore
    from app.agent.core.control import RunControl

Decision = Literal["approve", "deny"]
#: the runs of decisions under way (a door that stops listening never stops one)
_RUNNING: set[asyncio.Task[Any]] = set()


@dataclass(frozen=True, kw_only=True)
class DecisionRun(DoorRequest):
    """A second person's decision as a run of the requester's conversation: ``principal``
    is the REQUESTER as the users table says now (the call runs as them), ``approver``
    decided; the door is the approver's."""

    approver: Principal
    record: ApprovalRecord
    decision: Decision
    reason: str | None = None
    slot: Slot | None = field(default=None, repr=False)  # the approver's running slot


# ---- a decision -----------------------------------------------------------------------
async def requester_now(core: AgentCore, record: ApprovalRecord) -> Principal | None:
    """The requester as the users table says now (their current role; None: disabled or
    gone). An identity provider's user has no row: their role is the one recorded."""
    status = await asyncio.to_thread(core.auth.load_status, record.requester)
    if status.exists:
        if status.disabled or status.role is None:
            return None
        return Principal(user_id=record.requester, role=status.role, stamp=status.stamp)
    return record.requester_principal if is_external_user_id(record.requester) else None


async def decide(
    core: AgentCore, caller: Caller, approval_id: str, decision: str, reason: str | None = None
) -> dict[str, Any]:
    """A second person's ``approve`` or ``deny`` (see the module docstring): the request
    after it, and how the call ended (``outcome``: the approved call's status, or None)."""
    approver = await authenticate(caller, core=core, fresh=True)
    if decision not in ("approve", "deny"):
        raise await refused(core, approver, caller, 422, "invalid_decision",
                             "decision must be 'approve' or 'deny'", approval_id)  # fmt: skip
    if reason is not None and (not is_text(reason) or len(reason) > MAX_REASON_CHARS):
        too_long = f"reason must be text of at most {MAX_REASON_CHARS} chars"
        raise await refused(core, approver, caller, 422, "invalid_reason", too_long)
    record = await named_request(core, approver, caller, approval_id)
    if not may_approve(core.rules.policy().approval, approver.role):
        raise await refused(core, approver, caller, 403, "not_an_approver",
                             "your role may not approve requests", record=record)  # fmt: skip
    if record.requester == approver.user_id:
        raise await refused(core, approver, caller, 403, "own_request",
                             "a second person must approve it: not its requester",
                             record=record)  # fmt: skip
    await still_waiting(core, approver, caller, record)
    requester = record.requester_principal
    if decision == "approve":
        found = await requester_now(core, record)
        if found is None:
            raise await refused(core, approver, caller, 409, "requester_inactive",
                                 "its requester is disabled or gone", record=record)  # fmt: skip
        requester = found
    row = approver.audit_row(conv_id=record.conv_id, channel=caller.channel, client=caller.client)
    slot = await core.limits.hold(approver, row, core.audit) if decision == "approve" else None
    req = DecisionRun(
        principal=requester, conv_id=record.conv_id, channel=caller.channel,
        client=caller.client, approver=approver, record=record,
        decision=decision,  # type: ignore[arg-type]  # checked above
        reason=reason, slot=slot,
    )  # fmt: skip
    try:
        # the same run control as a resume: one run per conversation, across replicas;
        # the slot is freed when the run ends
        events = await opened(core._controlled(req, _run_decision))
    except BaseException:
        await core.limits.free(slot)
        raise
    task = asyncio.ensure_future(_drain(core, record, decision, events))
    _RUNNING.add(task)
    task.add_done_callback(_RUNNING.discard)
    outcome = await asyncio.shield(task)
    after = await book_of(core).load(record.id)
    return {"approval": (after or record).view(), "outcome": outcome}


async def _run_decision(
    core: AgentCore, req: DecisionRun, control: RunControl
) -> AsyncIterator[Event]:
    """Under the conversation's run control: the request is the one waiting in the
    conversation, for the same call; it is decided once; then the requester's graph
    resumes with the decision."""
    record, approver = req.record, req.approver
    caller = Caller(principal=approver, channel=req.channel, client=req.client)
    graph = await core.graph()
    config = run_config(req.conv_id)
    state = await graph.aget_state(config)
    values = state.values or {}
    waiting = next((i.value for i in state.interrupts if is_approval(i.value)), None)
    call = next(
        (p for p in values.get("pending") or [] if p.get("call_id") == record.call_id), None
    )
    if (
        waiting is None
        or waiting.get("approval_id") != record.id
        or call is None
        or args_hash(call["tool_name"], call.get("tool_args") or {}, call.get("env_id"))
        != record.args_hash
    ):
        raise await refused(core, approver, caller, 409, "not_pending",
                             "this request no longer waits in its conversation",
                             record=record)  # fmt: skip
    book = book_of(core)
    status = "approved" if req.decision == "approve" else "denied"
    if not await book.decide(record.id, status, by=approver.user_id, reason=req.reason):
        now = await book.load(record.id)
        await still_waiting(core, approver, caller, now or record)
        await book.expire(record)  # pending, yet refused: its time was up just now
        raise await refused(core, approver, caller, 410, "expired", "the request expired",
                             record=record)  # fmt: skip
    verdict = "allow" if status == "approved" else "deny"
    with_door = {"channel": req.channel, "client": req.client}
    await core.audit.record(
        kind=status, decision=verdict, reason=req.reason,
        args={"approval_id": record.id, "requester": record.requester},
        conv_id=record.conv_id, tool=record.tool_name, env=record.env_id,
        **approver.audit_row(), **with_door,
    )  # fmt: skip
    ctx = core.context_for(req, values.get("turn") or {}, turn_lang(values), control)
    ctx.approval_id = record.id
    answer = {"decision": req.decision, "by": approver.user_id, "reason": req.reason}
    resume: Command[Any] = Command(resume=answer)
    async for ev in run_graph(core, graph, resume, config, ctx, Sequencer(req.conv_id)):
        yield ev


def outcome_of(events: list[Event], call_id: str) -> str:
    """How the approved call ended: its ``tool_end`` status, ``timeout``, or ``refused``
    (policed again and refused, or changed since the request)."""
    refused = any(
        isinstance(e, PermissionDeniedEvent) or (isinstance(e, ErrorEvent) and e.refusal)
        for e in events
    )
    if any(isinstance(e, ToolTimeoutEvent) and e.call_id == call_id for e in events):
        return "timeout"
    for e in events:
        if isinstance(e, ToolEndEvent) and e.call_id == call_id:
            return "refused" if e.status == "cancelled" and refused else e.status
    return "refused" if refused else "failed"


async def _drain(
    core: AgentCore, record: ApprovalRecord, decision: str, events: AsyncIterator[Event]
) -> str | None:
    """Run the decision's events to their end (they land in the requester's checkpoint);
    then the request records how it ended (an approved call's outcome; ``denied``), so a
    page that waits for it knows the conversation is complete."""
    seen = [ev async for ev in events]
    outcome = outcome_of(seen, record.call_id) if decision == "approve" else None
    await book_of(core).finish(record.id, outcome or "denied")
    return outcome


# ---- the requester withdraws -------------------------------------------------------------
async def withdraw(core: AgentCore, caller: Caller, approval_id: str) -> dict[str, Any]:
    """The requester withdraws their waiting request (as a stop of its conversation
    does): nothing runs; audited ``approval_withdrawn``."""
    who = await authenticate(caller, core=core)
    record = await named_request(core, who, caller, approval_id)
    if record.requester != who.user_id:
        only = "only its requester may withdraw a request"
        raise await refused(core, who, caller, 403, "not_yours", only, record=record)
    await still_waiting(core, who, caller, record)
    await core.cancel(who, record.conv_id, channel=caller.channel)
    after = await book_of(core).load(record.id)
    return {"approval": (after or record).view(), "outcome": None}
