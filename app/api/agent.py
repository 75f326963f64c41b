"""Agent HTTP API: the SSE stream, confirmations, conversations.

    POST /api/agent/stream    {"message","history","conv_id","env_id","uicontext"}
    POST /api/agent/resume    {"conv_id","confirmation_id","decision","reason"?}
    GET  /api/agent/conversations/{conv_id}    messages and any pending confirmation

All three need ``Authorization: Bearer <token>``.

Bad input is answered before any stream starts: 401/403 for auth, 413/422 for a bad
uicontext, 404/409/410/425 for a refused confirmation — JSON with a reason, and an
audit row.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field

from app.agent.audit import audit, flush_audit
from app.agent.handler import (
    agent_handler,
    confirmation_status,
    get_conversation,
    prepare_resume,
    resume_stream,
)
from app.auth import Principal, bearer_token
from app.auth.http import require_principal_async
from app.context import validate_uicontext
from app.errors import AuthError, ConfirmationError, UIContextError

router = APIRouter(prefix="/api/agent", tags=["agent"])
Caller = Annotated[Principal, Depends(require_principal_async)]

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


class StreamRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    message: str = Field(min_length=1, max_length=20_000)
    history: list[dict[str, Any]] | None = None
    conv_id: str = Field(
        default_factory=lambda: uuid.uuid4().hex,
        min_length=1,
        max_length=128,
        pattern=r"^[A-Za-z0-9_.:-]+$",
    )
    env_id: str | None = Field(default=None, max_length=64)
    uicontext: dict[str, Any] | str | None = None


class ResumeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    conv_id: str = Field(min_length=1, max_length=128)
    confirmation_id: str = Field(min_length=1, max_length=128)
    decision: Literal["confirm", "deny"]
    reason: str | None = Field(default=None, max_length=2000)


def _bearer(request: Request) -> str:
    return bearer_token(request) or ""


def _sse(gen: AsyncIterator[str]) -> StreamingResponse:
    return StreamingResponse(gen, media_type="text/event-stream", headers=SSE_HEADERS)


@router.post("/stream")
async def stream(body: StreamRequest, request: Request, principal: Caller) -> Any:
    uictx = body.uicontext
    if isinstance(uictx, dict):
        uictx = json.dumps(uictx)
    if uictx is not None:
        try:
            validate_uicontext(uictx)
        except UIContextError as exc:
            if exc.status_code != 400:  # not-JSON is ignored by the handler (audited there)
                await audit(
                    kind="uicontext_invalid",
                    user=principal.user_id,
                    role=principal.role,
                    conv_id=body.conv_id,
                    decision="deny",
                    reason=str(exc),
                )
                await flush_audit()
                return JSONResponse(
                    {"error": "invalid_uicontext", "reason": str(exc)}, status_code=exc.status_code
                )
    gen = agent_handler(
        body.message,
        body.history,
        body.conv_id,
        principal.user_id,
        _bearer(request),
        body.env_id,
        uictx,
    )
    return _sse(gen)


@router.post("/resume")
async def resume(body: ResumeRequest, principal: Caller) -> Any:
    try:
        row = await prepare_resume(body.conv_id, principal, body.confirmation_id, body.decision)
    except ConfirmationError as exc:
        await flush_audit()
        return JSONResponse(
            {"error": "confirmation_refused", "reason": exc.reason, "message": str(exc)},
            status_code=confirmation_status(exc.reason),
        )
    return _sse(resume_stream(body.conv_id, principal, row, body.decision, body.reason))


@router.get("/conversations/{conv_id}")
async def conversation(conv_id: str, request: Request, principal: Caller) -> Any:
    try:
        return await get_conversation(conv_id, _bearer(request))
    except AuthError as exc:
        return JSONResponse({"error": "forbidden", "reason": str(exc)}, status_code=403)
