"""The approval queue as every door reads it (four-eyes): :func:`list_approvals`,
:func:`approval_status`, :func:`count_waiting`; and the checks a decision shares with
them (the request an id names, a refusal audited ``approval_refused``). The decisions
themselves: ``app.agent.core.approvals``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from app.agent.approval_record import ApprovalRecord
from app.agent.approvals import ApprovalBook
from app.agent.core.checks import authenticate, is_text
from app.agent.core.requests import Caller, RequestRefused
from app.auth import Principal
from app.policy import may_approve
from app.store.approvals import DECIDED, PENDING

if TYPE_CHECKING:
    from app.agent.core.agent import AgentCore

APPROVAL_ID = re.compile(r"^[0-9a-f]{32}$")
STATUSES = (PENDING, *DECIDED)


def book_of(core: AgentCore) -> ApprovalBook:
    return ApprovalBook(core.db, core.audit, core.settings)


async def refused(
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


async def named_request(
    core: AgentCore, who: Principal, caller: Caller, approval_id: Any
) -> ApprovalRecord:
    """The request ``approval_id`` names (422 malformed, 404 unknown; audited)."""
    if not is_text(approval_id) or not APPROVAL_ID.fullmatch(approval_id):
        raise await refused(core, who, caller, 422, "invalid_approval_id", "not a request id")
    book = book_of(core)
    await book.expire_due()
    record = await book.load(approval_id)
    if record is None:
        raise await refused(core, who, caller, 404, "not_found", "no such request", approval_id)
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
        raise await refused(core, who, caller, 422, "invalid_status", "unknown status")
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
    record = await named_request(core, who, caller, approval_id)
    if not _visible(core, who, record):
        raise await refused(core, who, caller, 404, "not_found", "no such request", approval_id)
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


async def still_waiting(
    core: AgentCore, who: Principal, caller: Caller, record: ApprovalRecord
) -> None:
    if record.status == "expired":
        raise await refused(core, who, caller, 410, "expired", "the request expired",
                             record=record)  # fmt: skip
    if record.status != PENDING:
        raise await refused(core, who, caller, 409, "already_decided",
                             f"the request was already {record.status}", record=record)  # fmt: skip
