"""Two pure ASGI middlewares around the whole app (API routes and pages).

* :class:`BodyGuard` (a body must not cost memory before it is refused): a request body
  larger than ``max_body_bytes`` is answered 413 before anything parses it — at once when
  ``Content-Length`` says so, else as soon as the streamed body passes the limit. A JSON
  body holding a lone surrogate escape (``"\\ud800"``, not valid Unicode) is answered 422,
  so no route ever meets text the database, the password hash or the logs cannot encode.
  Refusals use the one error shape and never echo the body.
* :class:`ErrorGuard` (item 7): an unexpected exception is a 500 ``{"error", "reason"}``
  logged without its message.
* :class:`SecurityHeaders` (item 15): ``Content-Security-Policy: frame-ancestors …``
  (``'self'`` unless ``SS_TOOLS_FRAME_ANCESTORS`` names the Superset hosts that embed
  /agent), ``X-Frame-Options: SAMEORIGIN`` when only ``'self'`` may frame,
  ``X-Content-Type-Options: nosniff`` and ``Referrer-Policy: same-origin``.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from app.api.error_shape import error_body, install_error_handlers, log_unexpected

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

SURROGATE_HINT = (b"\\ud8", b"\\ud9", b"\\uda", b"\\udb", b"\\udc", b"\\udd", b"\\ude", b"\\udf")


async def _refuse(send: Send, status: int, error: str, reason: str) -> None:
    body = error_body(error, reason)
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _has_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any(0xD800 <= ord(ch) <= 0xDFFF for ch in value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_surrogate(v) for v in value)
    return False


def lone_surrogate_in_json(body: bytes) -> bool:
    """Whether a JSON body decodes to text holding a lone surrogate (cheap when the body
    has no ``\\uD8xx``–``\\uDFxx`` escape at all, which is nearly always)."""
    lowered = body.lower()
    if not any(hint in lowered for hint in SURROGATE_HINT):
        return False
    try:
        return _has_surrogate(json.loads(body))
    except (ValueError, RecursionError):
        return False  # not JSON: the route's own parser refuses it


class BodyGuard:
    def __init__(self, app: ASGIApp, max_body_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None:
            try:
                too_big = int(declared) > self.max_body_bytes
            except ValueError:
                await _refuse(send, 400, "bad_request", "Content-Length is not a number")
                return
            if too_big:
                await _refuse(send, 413, "payload_too_large", self._limit_text())
                return
        chunks: list[bytes] = []
        size = 0
        more = True
        while more:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                await _refuse(send, 413, "payload_too_large", self._limit_text())
                return
            chunks.append(chunk)
            more = bool(message.get("more_body"))
        body = b"".join(chunks)
        if b"json" in headers.get(b"content-type", b"") and lone_surrogate_in_json(body):
            await _refuse(
                send,
                422,
                "invalid_request",
                "the body holds a lone surrogate (\\ud800–\\udfff), which is not valid text",
            )
            return
        await self.app(scope, _replay(body, receive), send)

    def _limit_text(self) -> str:
        return f"the request body is larger than the limit of {self.max_body_bytes} bytes"


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()  # after the body: wait for the disconnect as usual

    return replay


class ErrorGuard:
    """Any exception a non-page request raises: logged without its message (see
    :func:`app.api.error_shape.log_unexpected`) and answered 500 ``internal_error`` (or the
    stream is closed if it had started). Starlette's own last-resort handler would print
    the whole traceback — message included — which once showed a password."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking)
        except Exception as exc:
            if scope.get("nicegui_page_path"):
                raise  # NiceGUI renders its error page
            log_unexpected(scope.get("method", ""), scope.get("path", ""), exc)
            if not started:
                await _refuse(send, 500, "internal_error", "the server failed; it was logged")


class SecurityHeaders:
    def __init__(self, app: ASGIApp, frame_ancestors: str) -> None:
        self.app = app
        ancestors = " ".join(frame_ancestors.split()) or "'self'"
        self.headers = [
            (b"content-security-policy", f"frame-ancestors {ancestors}".encode()),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"same-origin"),
        ]
        if ancestors == "'self'":
            self.headers.append((b"x-frame-options", b"SAMEORIGIN"))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(n, v) for n, v in self.headers if n not in present]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, with_headers)


def install_http_guards(app: Any, *, max_body_bytes: int, frame_ancestors: str) -> None:
    """Add the middlewares (outermost first: headers, error guard, body guard) and the
    error handlers. Idempotent, and a no-op for the middlewares once the app serves."""
    install_error_handlers(app)
    present = {m.cls for m in app.user_middleware}
    if app.middleware_stack is not None:
        return  # already built: Starlette refuses new middleware now
    if BodyGuard not in present:
        app.add_middleware(BodyGuard, max_body_bytes=max_body_bytes)
    if ErrorGuard not in present:
        app.add_middleware(ErrorGuard)
    if SecurityHeaders not in present:
        app.add_middleware(SecurityHeaders, frame_ancestors=frame_ancestors)
