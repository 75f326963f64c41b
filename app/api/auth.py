"""``POST /api/auth/token``: exchange a username and password for a bearer token.

200 ``{"access_token", "token_type": "bearer", "expires_in", "role"}``; wrong credentials
(or a disabled user) 401 ``{"error": "unauthorized", "reason": "invalid username or
password"}``; a malformed body 422 ``{"error": "invalid_request", …}``; too many failed
sign-ins for the username or from the client 429 ``{"error": "too_many_requests", …}``
with ``Retry-After`` (see :mod:`app.auth.throttle`; the password is not even checked
then). A success and a username's first failure in a window leave an audit row (the
other failures are counted, not logged one by one). The password is never logged nor
audited.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import auth_of
from app.api.error_shape import error_response
from app.auth import authenticate
from app.auth.throttle import INVALID_CREDENTIALS, begin_login, login_failed, login_succeeded

router = APIRouter(prefix="/api/auth", tags=["auth"])


class TokenRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)

    username: str = Field(min_length=1, max_length=200)
    password: str = Field(min_length=1, max_length=1024, repr=False)


class TokenResponse(BaseModel):
    access_token: str
    token_type: Literal["bearer"] = "bearer"
    expires_in: int
    role: str


@router.post(
    "/token",
    response_model=TokenResponse,
    responses={
        401: {"description": "invalid username or password"},
        429: {"description": "too many failed sign-ins; see Retry-After"},
    },
)
def create_token(body: TokenRequest, request: Request) -> TokenResponse | JSONResponse:
    client = request.client.host if request.client else None
    auth = auth_of(request)
    gate = begin_login(auth, body.username, client)  # counted before the password check
    if not gate.allowed:
        return error_response(
            429,
            "too_many_requests",
            f"too many failed sign-ins; try again in {gate.retry_after_s} s",
            headers={"Retry-After": str(gate.retry_after_s)},
        )
    with auth.db.session() as session:
        principal = authenticate(
            session,
            username=body.username,
            password=body.password,
            scrypt_n=auth.settings.scrypt_n,
        )
    if principal is None:
        login_failed(auth, body.username, client, gate)
        return error_response(
            401, "unauthorized", INVALID_CREDENTIALS, headers={"WWW-Authenticate": "Bearer"}
        )
    login_succeeded(auth, body.username, client)
    token, expires_in = auth.issue(
        username=principal.user_id, role=principal.role, stamp=principal.stamp
    )
    auth.audit_event(
        kind="login",
        decision="allow",
        reason="password",
        args={"client": client},
        **principal.audit_row(),
    )
    return TokenResponse(access_token=token, expires_in=expires_in, role=principal.role)
