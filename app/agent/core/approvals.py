"""A second person's decision on a call that waits for one (four-eyes), for every door:
the queue (:func:`list_approvals`, :func:`approval_status`, :func:`count_waiting`), a
decision (:func:`decide`) and the requester's withdrawal (:func:`withdraw`).

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
maintenance window and the preflight: ``app.agent.approval_nodes``). Its events land in
the requester's conversation (its checkpoint; the requester's open page picks them up);
the approver gets the outcome. The run takes one of the APPROVER's running slots, unpaced
(the request that arrives is theirs; the requester's pace never blocks an approval). A
denial takes no slot; its reason reaches the requester's conversation.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from langgraph.types import Command

from app.agent.approvals import ApprovalBook, ApprovalRecord, is_approval
from app.agent.confirmation import args_hash
from app.agent.core.checks import MAX_REASON_CHARS, authenticate, is_text
from app.agent.core.control import opened
from app.agent.core.conversations import run_config
from app.agent.core.requests import Caller, DoorRequest, RequestRefused
from app.agent.core.runner import run_graph
from app.agent.core.runs import turn_lang
from app.agent.state import Sequencer
from app.auth import Principal
from app.auth.external_ids import is_external_user_id
from app.events import ErrorEvent, Event, PermissionDeniedEvent, ToolEndEvent, ToolTimeoutEvent
from app.policy import may_approve
from app.store.approvals import DECIDED, PENDING

if TYPE_CHECKING:
    from app.agent.core.agent import AgentCore
    from app.agent.core.control import RunControl
    from app.agent.core.limits import Slot

APPROVAL_ID = re.compile(r"^[0-9a-f]{32}$")
STATUSES = (PENDING, *DECIDED)
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


def book_of(core: AgentCore) -> ApprovalBook:
    return ApprovalBook(core.db, core.audit, core.settings)


async def _refused(
    core: AgentCore, who: Principal, caller: Caller, status: int, error: str, reason: str,
    approval_id: str | None = None, record: ApprovalRecord | None = None,
) -> RequestRefused:  # fmt: skip
    """Audit a refused approval (committed) and return it to raise."""
    await core.audit.record(
        kind="approval_refused",
        decision="refused",
        reason=f"{error}: {reason}",
        args={"approval_id": approval_id or (record.id if record else None)},
        conv_id=record.conv_id if record else None,
        tool=record.tool_name if record else None,
        env=record.env_id if record else None,
        channel=caller.channel,
        client=caller.client,
        **who.audit_row(),
    )
    await core.audit.flush()
    return RequestRefused(status, error, reason)


async def _record(
    core: AgentCore, who: Principal, caller: Caller, approval_id: Any
) -> ApprovalRecord:
    """The request ``approval_id`` names (422 malformed, 404 unknown; audited)."""
    if not is_text(approval_id) or not APPROVAL_ID.fullmatch(approval_id):
        raise await _refused(core, who, caller, 422, "invalid_approval_id", "not a request id")
    book = book_of(core)
    await book.expire_due()
    record = await book.load(approval_id)
    if record is None:
        raise await _refused(core, who, caller, 404, "not_found", "no such request", approval_id)
    return record


def _visible(core: AgentCore, who: Principal, record: ApprovalRecord) -> bool:
    return record.requester == who.user_id or may_approve(core.rules.policy().approval, who.role)


# ---- the queue ------------------------------------------------------------------------
async def list_approvals(
    core: AgentCore, caller: Caller, *, status: str = PENDING
) -> list[dict[str, Any]]:
    """The requests an approver may see (all; ``may_decide`` on the others' that wait),
    or for anyone else their own; ``status``: one of :data:`STATUSES`, or ``all``."""
    who = await authenticate(caller, core=core)
    if status != "all" and status not in STATUSES:
        raise await _refused(core, who, caller, 422, "invalid_status", "unknown status")
    approver = may_approve(core.rules.policy().approval, who.role)
    statuses = () if status == "all" else (status,)
    mine = None if approver else who.user_id
    records = await book_of(core).listed(requester=mine, statuses=statuses)
    return [r.view(may_decide=_may_decide(core, who, r)) for r in records]


def _may_decide(core: AgentCore, who: Principal, record: ApprovalRecord) -> bool:
    return (
        record.status == PENDING
        and record.requester != who.user_id
        and may_approve(core.rules.policy().approval, who.role)
    )


async def approval_status(core: AgentCore, caller: Caller, approval_id: str) -> dict[str, Any]:
    """One request, for its requester or an approver (404 for anyone else)."""
    who = await authenticate(caller, core=core)
    record = await _record(core, who, caller, approval_id)
    if not _visible(core, who, record):
        raise await _refused(core, who, caller, 404, "not_found", "no such request", approval_id)
    return record.view(may_decide=_may_decide(core, who, record))


async def count_waiting(core: AgentCore, principal: Principal) -> int | None:
    """How many requests ``principal`` could approve now (the header's count); None when
    they may not approve (or four-eyes is off)."""
    approval = core.rules.policy().approval
    if not approval.enabled or not may_approve(approval, principal.role):
        return None
    book = book_of(core)
    await book.expire_due()
    return await book.count_waiting(principal.user_id)


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
        raise await _refused(core, approver, caller, 422, "invalid_decision",
                             "decision must be 'approve' or 'deny'", approval_id)  # fmt: skip
    if reason is not None and (not is_text(reason) or len(reason) > MAX_REASON_CHARS):
        too_long = f"reason must be text of at most {MAX_REASON_CHARS} chars"
        raise await _refused(core, approver, caller, 422, "invalid_reason", too_long)
    record = await _record(core, approver, caller, approval_id)
    if not may_approve(core.rules.policy().approval, approver.role):
        raise await _refused(core, approver, caller, 403, "not_an_approver",
                             "your role may not approve requests", record=record)  # fmt: skip
    if record.requester == approver.user_id:
        raise await _refused(core, approver, caller, 403, "own_request",
                             "a second person must approve it: not its requester",
                             record=record)  # fmt: skip
    await _still_waiting(core, approver, caller, record)
    requester = record.requester_principal
    if decision == "approve":
        found = await requester_now(core, record)
        if found is None:
            raise await _refused(core, approver, caller, 409, "requester_inactive",
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


async def _still_waiting(
    core: AgentCore, who: Principal, caller: Caller, record: ApprovalRecord
) -> None:
    if record.status == "expired":
        raise await _refused(core, who, caller, 410, "expired", "the request expired",
                             record=record)  # fmt: skip
    if record.status != PENDING:
        raise await _refused(core, who, caller, 409, "already_decided",
                             f"the request was already {record.status}", record=record)  # fmt: skip


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
        raise await _refused(core, approver, caller, 409, "not_pending",
                             "this request no longer waits in its conversation",
                             record=record)  # fmt: skip
    book = book_of(core)
    status = "approved" if req.decision == "approve" else "denied"
    if not await book.decide(record.id, status, by=approver.user_id, reason=req.reason):
        now = await book.load(record.id)
        await _still_waiting(core, approver, caller, now or record)
        await book.expire(record)  # pending, yet refused: its time was up just now
        raise await _refused(core, approver, caller, 410, "expired", "the request expired",
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
    record = await _record(core, who, caller, approval_id)
    if record.requester != who.user_id:
        only = "only its requester may withdraw a request"
        raise await _refused(core, who, caller, 403, "not_yours", only, record=record)
    await _still_waiting(core, who, caller, record)
    await core.cancel(who, record.conv_id, channel=caller.channel)
    after = await book_of(core).load(record.id)
    return {"approval": (after or record).view(), "outcome": None}
