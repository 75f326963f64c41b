"""The approval queue over HTTP (four-eyes): a second person approves a waiting call.

    GET  /api/approvals[?status=pending|approved|denied|withdrawn|expired|all]
         {"approvals": [...], "policy": {"second_person", "approver_roles"}}: an
         approver sees every request (``may_decide`` on the others' that wait), anyone
         else their own
    GET  /api/approvals/{id}     one request (its requester or an approver; else 404)
    POST /api/approvals/{id}     {"decision": "approve" | "deny" | "withdraw", "reason"?}
         approve / deny: a second person (never the requester: 403 ``own_request``);
         withdraw: the requester. Answers {"approval": {...}, "outcome": ...} once the
         call has run (or was refused) in the requester's conversation.

All need ``Authorization: Bearer <token>``. Refusals are ``{"error", "reason"}`` with their
status (401, 403, 404, 409 ``already_decided`` / ``not_pending`` /
``conversation_busy``, 410 ``expired``, 422, 429 ``too_many_running``), each audited. The
door is thin: the rules are ``app.agent.core.approvals``'.
"""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict

from app.agent.core import Caller, RequestRefused, authenticate
from app.agent.core import approvals as queue
from app.api.agent_routes import _body, _openapi, refusal
from app.api.deps import core_of
from app.auth import bearer_token
from app.vocab import Channel

router = APIRouter(prefix="/api/approvals", tags=["approvals"])
CHANNEL: Channel = "http"


class DecisionBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    decision: Literal["approve", "deny", "withdraw"]
    reason: str | None = None


def _caller(request: Request) -> Caller:
    token = bearer_token(request) or request.headers.get("authorization")
    return Caller(token=token, channel=CHANNEL)


@router.get("")
async def list_requests(request: Request, status: str = "pending") -> Any:
    core = core_of(request)
    try:
        rows = await queue.list_approvals(core, _caller(request), status=status)
    except RequestRefused as refused:
        return refusal(refused)
    return {"approvals": rows, "policy": core.rules.policy().approval.as_dict()}


@router.get("/{approval_id}")
async def one_request(approval_id: str, request: Request) -> Any:
    try:
        return await queue.approval_status(core_of(request), _caller(request), approval_id)
    except RequestRefused as refused:
        return refusal(refused)


@router.post("/{approval_id}", openapi_extra=_openapi(DecisionBody))
async def decide(approval_id: str, request: Request) -> Any:
    core = core_of(request)
    try:
        principal = await authenticate(_caller(request), core=core)
        body: DecisionBody = await _body(request, DecisionBody)
        caller = Caller(principal=principal, channel=CHANNEL)
        if body.decision == "withdraw":
            return await queue.withdraw(core, caller, approval_id)
        return await queue.decide(core, caller, approval_id, body.decision, body.reason)
    except RequestRefused as refused:
        return refusal(refused)
