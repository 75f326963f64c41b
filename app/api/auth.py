"""``POST /api/auth/token``: exchange a username and password for a bearer token.

200 ``{"access_token", "token_type": "bearer", "expires_in", "role"}``; wrong credentials
(or a disabled user) 401 ``{"error": "unauthorized", "reason": "invalid username or
password"}``; a malformed body 422 (FastAPI validation). Each attempt leaves an audit row
(``login`` with ``allow`` or ``deny``). The password is never logged nor audited.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from app.auth import audit_auth_event, authenticate, issue_token

router = APIRouter(prefix="/api/auth", tags=["auth"])

INVALID_CREDENTIALS = "invalid username or password"


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
    responses={401: {"description": "invalid username or password"}},
)
def create_token(body: TokenRequest) -> TokenResponse | JSONResponse:
    from app.store.db import session_scope

    with session_scope() as session:
        principal = authenticate(session, username=body.username, password=body.password)
    if principal is None:
        audit_auth_event(
            kind="login", decision="deny", reason=INVALID_CREDENTIALS, user=body.username
        )
        return JSONResponse(
            status_code=401,
            content={"error": "unauthorized", "reason": INVALID_CREDENTIALS},
            headers={"WWW-Authenticate": "Bearer"},
        )
    token, expires_in = issue_token(username=principal.user_id, role=principal.role)
    audit_auth_event(
        kind="login",
        decision="allow",
        reason="password",
        user=principal.user_id,
        role=principal.role,
    )
    return TokenResponse(access_token=token, expires_in=expires_in, role=principal.role)
