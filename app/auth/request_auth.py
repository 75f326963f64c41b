"""The auth checks of an HTTP request, given the app's :class:`~app.auth.gate.AuthGate`.

``request_principal`` is blocking (FastAPI runs the door's plain ``def`` dependency in
its thread pool): the JWKS fetch, the user check and the audit insert never block the
event loop. ``request_principal_async`` serves hot async routes inline when everything
it needs is in memory. A refusal writes an audit row (``auth_failed`` / ``deny`` with the
reason and the request path; never the token) and raises 401 ``{"error":
"unauthorized", "reason": ...}``. The HTTP door's dependencies
(``app.api.deps.require_principal`` / ``require_admin``) hand in the app's gate.
"""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException, Request
from starlette.concurrency import run_in_threadpool

from app.auth.gate import AuthGate, check_status
from app.auth.tokens import Principal
from app.errors import AuthError


def bearer_token(request: Request) -> str | None:
    """The token of an ``Authorization: Bearer <token>`` header, else None."""
    header = request.headers.get("authorization")
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def _request_args(request: Request) -> dict[str, Any]:
    return {"method": request.method, "path": request.url.path}


def unauthorized(reason: str) -> HTTPException:
    return HTTPException(
        status_code=401,
        detail={"error": "unauthorized", "reason": reason},
        headers={"WWW-Authenticate": "Bearer"},
    )


def request_principal(auth: AuthGate, request: Request) -> Principal:
    """The verified, still-active caller, or 401 ``{"error": "unauthorized", ...}``."""
    header = request.headers.get("authorization")
    token = bearer_token(request)
    try:
        if token is None and header:
            raise AuthError("malformed token")
        return auth.verify(token)
    except AuthError as exc:
        auth.audit_event(
            kind="auth_failed", decision="deny", reason=exc.message, args=_request_args(request)
        )
        raise unauthorized(exc.message) from None


async def request_principal_async(auth: AuthGate, request: Request) -> Principal:
    """``request_principal`` for hot async routes: a local HS256 check is pure CPU (tens of
    microseconds) and the user check is usually cached, so both run inline; an external
    key set (which may fetch a JWKS URL), a cache miss or a refusal (an audit insert)
    goes to a worker thread."""
    token = bearer_token(request)
    if token is None or auth.external:
        return await run_in_threadpool(request_principal, auth, request)
    try:
        principal = auth.decode(token)
        status = auth.cached_status(principal.user_id)
        if status is not None:
            return check_status(principal, status)
    except AuthError:
        pass  # the worker thread below answers (and audits) the refusal
    return await run_in_threadpool(request_principal, auth, request)


def request_admin(auth: AuthGate, request: Request, principal: Principal) -> Principal:
    """``principal`` if it is an admin, else 403 ``{"error": "forbidden", ...}`` (audited)."""
    if principal.role != "admin":
        auth.audit_event(
            kind="permission_denied",
            decision="deny",
            reason="admin role required",
            args=_request_args(request),
            **principal.audit_row(),
        )
        raise HTTPException(
            status_code=403,
            detail={"error": "forbidden", "reason": "admin role required"},
        )
    return principal
