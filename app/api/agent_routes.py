"""Agent HTTP API (the HTTP door): the SSE stream, confirmations, conversations.

    POST  /api/agent/stream    {"message","history","conv_id","env_id","uicontext"}
    POST  /api/agent/resume    {"conv_id","confirmation_id","decision","reason"?,"args"?}
    POST  /api/agent/call      {"conv_id","tool_name","args","uicontext"?,"lang"?}: a direct
                               tool call (an offer's ``call``), through the same guard
    POST  /api/agent/cancel    {"conv_id"}: stop a running turn / withdraw a confirmation
    GET   /api/agent/conversations[?archived=1]   the caller's list, newest first
    GET   /api/agent/conversations/{conv_id}      messages, tool calls, a pending confirmation
    PATCH /api/agent/conversations/{conv_id}      {"title"?, "archived"?}: rename, archive

All need ``Authorization: Bearer <token>``. The door is thin: it reads the body, calls
``prepare_turn`` / ``prepare_resume`` / ``prepare_call`` (the one input check; audited) and
streams the core's events as SSE. Every refusal is docs/http-api.md's ``{"error", "reason"}``
JSON, answered before any stream starts: 401 auth, 403 another user's conversation,
413/422 a bad uicontext, 422 a bad field (env_id, conv_id, message, history, tool_name,
args), 404/409/410/425 a refused confirmation, 429 with ``Retry-After`` a user over a limit
(``rate_limited``: too many turns or calls a minute; ``too_many_running``: too many at
once; ``app.agent.core.limits``). ``/cancel`` (Stop) is never limited.
"""

from __future__ import annotations

import functools
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Literal, TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from app.agent.core import (
    AgentCore,
    Caller,
    CallRequest,
    RequestRefused,
    ResumeInput,
    TurnInput,
    authenticate,
    prepare_call,
    prepare_resume,
    prepare_turn,
)
from app.agent.core.control import admitted
from app.agent.handler import encode_stream
from app.api.deps import core_of
from app.api.error_shape import error_response
from app.auth import bearer_token
from app.events import Event
from app.store.conversations import ConversationChange
from app.vocab import Channel

router = APIRouter(prefix="/api/agent", tags=["agent"])

SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
CHANNEL: Channel = "http"
R = TypeVar("R")


class StreamBody(BaseModel):
    """The shape of a stream request (a ``TurnInput``'s fields); the values are checked by
    ``prepare_turn``."""

    model_config = ConfigDict(extra="forbid", strict=True)
    message: str
    history: list[dict[str, Any]] | None = None
    conv_id: str | None = None
    env_id: str | None = None
    uicontext: dict[str, Any] | str | None = None


class CallBody(BaseModel):
    """The shape of a direct call (an offer's ``call``: ``tool_name`` and ``args``); the
    values are checked by ``prepare_call`` (``args`` must be a JSON object), whether the
    caller may make it by the guard."""

    model_config = ConfigDict(extra="forbid", strict=True)
    conv_id: str
    tool_name: str
    args: Any = None
    uicontext: dict[str, Any] | str | None = None
    lang: str | None = None


async def _prepare_call(body: CallBody, *, core: AgentCore, caller: Caller) -> CallRequest:
    return await prepare_call(
        core=core,
        caller=caller,
        tool_name=body.tool_name,
        arguments=body.args,
        conv_id=body.conv_id,
        uicontext=body.uicontext,
        lang=body.lang,
    )


class CancelBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    conv_id: str


class ConversationPatch(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    title: str | None = Field(default=None, min_length=1, max_length=200)
    archived: bool | None = None


class ResumeBody(BaseModel):
    """The shape of a resume request (a ``ResumeInput``'s fields); the values are checked
    by ``prepare_resume``."""

    model_config = ConfigDict(extra="forbid", strict=True)
    conv_id: str
    confirmation_id: str
    decision: Literal["confirm", "deny"]
    reason: str | None = None
    args: dict[str, Any] | None = None


def _openapi(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema()
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


def refusal(refused: RequestRefused) -> JSONResponse:
    """The refusal's JSON with its status and headers (``Retry-After`` of a 429)."""
    status, error, reason, extra = refused.http()
    headers = dict(refused.headers)
    if status == 401:
        headers["WWW-Authenticate"] = "Bearer"
    return error_response(status, error, reason, headers=headers, **extra)


def _invalid_body(exc: ValidationError) -> RequestRefused:
    """A body of the wrong shape (names the fields, never echoes their values)."""
    fields = sorted({".".join(str(p) for p in e["loc"]) or "body" for e in exc.errors()})
    return RequestRefused(422, "invalid_request", f"invalid or missing: {', '.join(fields)}")


async def _body(request: Request, model: type[BaseModel]) -> Any:
    try:
        data = json.loads(await request.body())
    except (ValueError, RecursionError):  # not UTF-8, not JSON, nested too deeply
        raise RequestRefused(422, "invalid_request", "the body is not JSON") from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise _invalid_body(exc) from None


def _caller(request: Request) -> Caller:
    """Who asks through this door: the Bearer token (a header of another kind is passed on
    to be refused as malformed)."""
    token = bearer_token(request) or request.headers.get("authorization")
    return Caller(token=token, channel=CHANNEL)


def _sse(frames: Any) -> StreamingResponse:
    return StreamingResponse(frames, media_type="text/event-stream", headers=SSE_HEADERS)


async def _stream_door(
    request: Request,
    model: type[BaseModel],
    given: Callable[..., object],
    prepare: Callable[..., Awaitable[R]],
    run: Callable[[AgentCore, R], AsyncIterator[Event]],
) -> Any:
    """Auth, the body of ``model`` (its fields are ``given``'s: the door's input),
    ``prepare``; then the core's events as SSE (``run``), or the refusal as JSON before
    any stream (busy on another replica: 409)."""
    core = core_of(request)
    try:
        principal = await authenticate(_caller(request), core=core)
        body = await _body(request, model)
        caller = Caller(principal=principal, channel=CHANNEL)
        prepared = prepare(given(**dict(body)), core=core, caller=caller)
        events = await admitted(prepared, functools.partial(run, core))
    except RequestRefused as refused:
        return refusal(refused)
    return _sse(encode_stream(events))


@router.post("/stream", openapi_extra=_openapi(StreamBody))
async def stream(request: Request) -> Any:
    return await _stream_door(
        request, StreamBody, TurnInput, prepare_turn, lambda core, req: core.run_turn(req)
    )


@router.post("/resume", openapi_extra=_openapi(ResumeBody))
async def resume(request: Request) -> Any:
    return await _stream_door(
        request, ResumeBody, ResumeInput, prepare_resume, lambda core, req: core.resume(req)
    )


@router.post("/call", openapi_extra=_openapi(CallBody))
async def call(request: Request) -> Any:
    """A direct tool call (e.g. an offer's ``call``) in the caller's conversation: the
    same events as a turn, without a model (``tool_start`` .. ``tool_end``, or
    ``confirm_required``, or ``permission_denied`` / ``error``; then ``done``)."""
    return await _stream_door(
        request, CallBody, CallBody, _prepare_call, lambda core, req: core.run_call(req)
    )


@router.get("/conversations/{conv_id}")
async def conversation(conv_id: str, request: Request) -> Any:
    core = core_of(request)
    try:
        principal = await authenticate(_caller(request), core=core)
        view = await core.conversation(principal, conv_id)
    except RequestRefused as refused:
        return refusal(refused)
    return view.as_dict()


@router.post("/cancel", openapi_extra=_openapi(CancelBody))
async def cancel(request: Request) -> Any:
    """Stop the caller's running turn (reads cancelled, writes go on), or withdraw its
    pending confirmation: ``{"conv_id","stopped","withdrawn","writes_in_flight"}``."""
    core = core_of(request)
    try:
        principal = await authenticate(_caller(request), core=core)
        body: CancelBody = await _body(request, CancelBody)
        report = await core.cancel(principal, body.conv_id, channel=CHANNEL)
    except RequestRefused as refused:
        return refusal(refused)
    return report.as_dict()


@router.get("/conversations")
async def conversations(request: Request, archived: str = "0") -> Any:
    """``{"conversations": [{"conv_id","title","updated_at","env_id","object_type",
    "pending_confirmation","archived"}]}``: the caller's own, newest first."""
    core = core_of(request)
    try:
        principal = await authenticate(_caller(request), core=core)
    except RequestRefused as refused:
        return refusal(refused)
    rows = await core.conversations(principal, archived=archived in ("1", "true", "yes"))
    return {"conversations": [row.as_dict() for row in rows]}


@router.patch("/conversations/{conv_id}", openapi_extra=_openapi(ConversationPatch))
async def update_conversation(conv_id: str, request: Request) -> Any:
    """Rename (``title``) and/or archive (``archived``) the caller's conversation. Archiving
    hides it from the list; its checkpoint and audit trail stay."""
    core = core_of(request)
    try:
        principal = await authenticate(_caller(request), core=core)
        body: ConversationPatch = await _body(request, ConversationPatch)
        change = ConversationChange(title=body.title, archived=body.archived)
        row = await core.update_conversation(principal, conv_id, change)
    except RequestRefused as refused:
        return refusal(refused)
    return row.as_dict()
