"""The one error shape of the HTTP API: ``{"error": <code>, "reason": <text>}`` with a 4xx.

Every refusal of every route (401, 403, 404, 409, 410, 413, 422, 425, 429) is built here,
so a client reads one shape. ``reason`` is a sentence for a person; it never echoes the
request body back.

:func:`install_error_handlers` makes the app's own failures take the same shape, never
echoing the input: FastAPI's validation errors (field path and message only, never the
input) and a body it cannot decode (422 ``invalid_request``, like every route's own "the
body is not JSON", never a 400 of another shape), ``HTTPException`` (a ``{"error",
"reason"}`` detail is passed through flat), 404/405 on ``/api/…``. Unexpected exceptions
are caught by :class:`app.api.middleware.ErrorGuard` (500 ``internal_error``, logged by
:func:`log_unexpected` with its type and code frames only — no message, no locals — so no
password reaches the logs). Pages keep NiceGUI's own HTML error pages.
"""

from __future__ import annotations

import json
import logging
import traceback
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, cast

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from app.errors import error_shape

log = logging.getLogger("ss_tools.api")

ERROR_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    410: "gone",
    413: "payload_too_large",
    422: "invalid_request",
    425: "too_early",
    429: "too_many_requests",
    500: "internal_error",
    503: "unavailable",
}
MAX_REASON = 500
MAX_LOC_PART = 64
_WRAPPED = "_ss_tools_wrapped"

Handler = Callable[[Request, Exception], Awaitable[Response]]


def error_response(
    status: int,
    error: str,
    reason: str,
    *,
    headers: Mapping[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    """A JSON refusal: ``{"error", "reason", **extra}`` with ``status``."""
    return JSONResponse(
        error_shape(error, reason, **extra),
        status_code=status,
        headers=dict(headers or {}),
    )


def error_body(error: str, reason: str) -> bytes:
    """The encoded ``{"error", "reason"}`` body (for pure ASGI middleware)."""
    return json.dumps(error_shape(error, reason)).encode()


def _surrogate(ch: str) -> bool:
    return 0xD800 <= ord(ch) <= 0xDFFF


def _printable(text: str, limit: int) -> str:
    clean = "".join(ch if ch.isprintable() and not _surrogate(ch) else "?" for ch in text)
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


def validation_reason(exc: RequestValidationError) -> str:
    """``body.username: String should have at least 1 character; …`` — where and what,
    never the offending value."""
    parts = []
    for item in exc.errors()[:5]:
        loc = ".".join(_printable(str(p), MAX_LOC_PART) for p in item.get("loc", ()))
        msg = _printable(str(item.get("msg", "invalid")), 200)
        parts.append(f"{loc or 'request'}: {msg}")
    return _printable("; ".join(parts) or "invalid request", MAX_REASON)


def _is_api(request: Request) -> bool:
    return request.url.path.startswith("/api/")


async def on_validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    return error_response(422, "invalid_request", validation_reason(exc))


def _unparsable_body(exc: StarletteHTTPException) -> bool:
    """FastAPI's own 400 for a body it could not decode (not UTF-8, nested too deeply):
    the same refusal as any other body that is not JSON (one refusal, one shape)."""
    cause = exc.__cause__
    return exc.status_code == 400 and isinstance(cause, ValueError | RecursionError)


async def on_http_exception(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    if _is_api(request) and _unparsable_body(exc):
        return error_response(422, "invalid_request", "the body is not JSON")
    detail = exc.detail
    headers = dict(exc.headers or {})
    code = ERROR_CODES.get(exc.status_code, "error")
    if isinstance(detail, Mapping) and "error" in detail:
        error = str(detail["error"])
        reason = _printable(str(detail.get("reason") or error), MAX_REASON)
        extra = {k: v for k, v in detail.items() if k not in ("error", "reason")}
        return error_response(exc.status_code, error, reason, headers=headers, **extra)
    reason = detail if isinstance(detail, str) and detail else code.replace("_", " ")
    return error_response(exc.status_code, code, _printable(reason, MAX_REASON), headers=headers)


def log_unexpected(method: str, path: str, exc: BaseException) -> None:
    """Type, path and code frames only: an exception's message or locals may hold a
    password or the request body."""
    frames = "\n".join(
        f"  {frame.filename}:{frame.lineno} in {frame.name}"
        for frame in traceback.extract_tb(exc.__traceback__)
    )
    log.error("unexpected %s on %s %s\n%s", type(exc).__name__, method, path, frames)


def _api_first(original: Handler | None, api: Handler) -> Handler:
    """``api`` for ``/api/…``, ``original`` (NiceGUI's page-aware handler) for the rest."""

    async def handler(request: Request, exc: Exception) -> Response:
        if _is_api(request) or original is None:
            return await api(request, exc)
        return await original(request, exc)

    setattr(handler, _WRAPPED, original)
    return handler


def _wrap(app: FastAPI, key: Any, api: Handler) -> None:
    current = app.exception_handlers.get(key)
    original = cast("Handler | None", getattr(current, _WRAPPED, current))
    app.exception_handlers[key] = _api_first(original, api)


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers (idempotent: safe to call for every app build)."""
    app.exception_handlers[RequestValidationError] = on_validation_error
    app.exception_handlers[StarletteHTTPException] = on_http_exception
    _wrap(app, 404, on_http_exception)
