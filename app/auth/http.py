"""FastAPI dependencies: ``require_principal`` (Bearer token) and ``require_admin``.

``require_principal`` is a plain ``def`` dependency, so FastAPI runs it in its thread
pool: the JWKS fetch, the user check (:func:`app.auth.active.verify_token`) and the audit
insert never block the event loop. ``require_principal_async`` serves hot async routes
inline when everything it needs is in memory. A refusal writes an audit row
(``auth_failed`` / ``deny`` with the reason and the request path; never the token) and
answers 401 ``{"error": "unauthorized", "reason": ...}``.
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from app.auth.active import cached_status, check_status, verify_token
from app.auth.tokens import Principal, decode_token, external_enabled
from app.errors import AuthError
from app.settings import get_settings
from app.store.audit import record_audit
from app.store.db import session_scope

log = logging.getLogger("ss_tools.auth")


def audit_auth_event(
    *,
    kind: str,
    decision: str,
    reason: str | None,
    user: str | None = None,
    role: str | None = None,
    args: dict[str, Any] | None = None,
) -> None:
    """Append one audit row in its own transaction. A database failure is logged, not
    raised, so it cannot turn a 401 into a 500 (the refusal itself still happens)."""
    try:
        with session_scope() as session:
            record_audit(
                session,
                kind=kind,
                user=user,
                role=role,
                decision=decision,
                reason=reason,
                args=args,
            )
    except SQLAlchemyError:
        log.error("could not write audit row kind=%s decision=%s", kind, decision)


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


def require_principal(request: Request) -> Principal:
    """The verified, still-active caller, or 401 ``{"error": "unauthorized", ...}``."""
    header = request.headers.get("authorization")
    token = bearer_token(request)
    try:
        if token is None and header:
            raise AuthError("malformed token")
        return verify_token(token)
    except AuthError as exc:
        audit_auth_event(
            kind="auth_failed", decision="deny", reason=exc.message, args=_request_args(request)
        )
        raise unauthorized(exc.message) from None


async def require_principal_async(request: Request) -> Principal:
    """``require_principal`` for hot async routes: a local HS256 check is pure CPU (tens of
    microseconds) and the user check is usually cached, so both run inline; an external
    key set (which may fetch a JWKS URL), a cache miss or a refusal (an audit insert)
    goes to a worker thread."""
    token = bearer_token(request)
    if token is None or external_enabled(get_settings()):
        return await run_in_threadpool(require_principal, request)
    try:
        principal = decode_token(token)
        status = cached_status(principal.user_id)
        if status is not None:
            return check_status(principal, status)
    except AuthError:
        pass  # the worker thread below answers (and audits) the refusal
    return await run_in_threadpool(require_principal, request)


def require_admin(
    request: Request, principal: Annotated[Principal, Depends(require_principal)]
) -> Principal:
    """The caller if it is an admin, else 403 ``{"error": "forbidden", ...}``."""
    if principal.role != "admin":
        audit_auth_event(
            kind="permission_denied",
            decision="deny",
            reason="admin role required",
            user=principal.user_id,
            role=principal.role,
            args=_request_args(request),
        )
        raise HTTPException(
            status_code=403,
            detail={"error": "forbidden", "reason": "admin role required"},
        )
    return principal
