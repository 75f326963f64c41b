"""FastAPI dependencies: ``require_principal`` (Bearer token) and ``require_admin``.

Both are plain ``def`` dependencies, so FastAPI runs them in its thread pool: the JWKS
fetch and the audit insert never block the event loop. A refusal writes an audit row
(``auth_failed`` / ``deny`` with the reason and the request path; never the token).
"""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request
from sqlalchemy.exc import SQLAlchemyError

from app.auth.tokens import Principal, verify_token
from app.errors import AuthError

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
    from app.store.audit import record_audit
    from app.store.db import session_scope

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
        log.exception("could not write audit row kind=%s decision=%s", kind, decision)


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


def require_principal(request: Request) -> Principal:
    """The verified caller, or 401 ``{"error": "unauthorized", "reason": ...}``."""
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
        raise HTTPException(
            status_code=401,
            detail={"error": "unauthorized", "reason": exc.message},
            headers={"WWW-Authenticate": "Bearer"},
        ) from None


async def require_principal_async(request: Request) -> Principal:
    """``require_principal`` for hot async routes: a local HS256 check is pure CPU (tens of
    microseconds), so it runs inline instead of hopping to the thread pool; only an
    external key set (which may fetch a JWKS URL) or a refusal (an audit insert) goes to a
    worker thread."""
    from starlette.concurrency import run_in_threadpool

    from app.auth.tokens import external_enabled
    from app.settings import get_settings

    token = bearer_token(request)
    if token is None or external_enabled(get_settings()):
        return await run_in_threadpool(require_principal, request)
    try:
        return verify_token(token)
    except AuthError:
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
