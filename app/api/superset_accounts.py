"""A person's Superset accounts (docs/identity.md): link, list, unlink; the assertion key.

    POST   /api/superset/accounts            {"env_id", "username", "password"}
           201 {"env_id", "username", "linked_at", "expires_at"}
    GET    /api/superset/accounts            200 {"accounts": [...]}: the caller's own links
    DELETE /api/superset/accounts/{env_id}   200 {"env_id", "unlinked": true}; 404 none
    GET    /api/superset/jwks.json           the public key assertions are signed with (no
                                             auth: it is public); 404 when none is set

The first three need ``Authorization: Bearer <token>``. Linking signs in to Superset once
(``app.superset.accounts``); the password is used for that request only: never stored,
logged, audited or echoed (FastAPI's validation errors name fields, never values). Each
attempt counts against the sign-in throttle (``app.auth.throttle``; per Superset username
of the environment, and per client address) before Superset is asked. Refusals are the
API's one shape ``{"error", "reason"}``: 404 unknown environment, 422 an environment that
does not link accounts or Superset refusing the sign-in (``superset_login_refused``, with
Superset's reason), 429 too many attempts (``Retry-After``), 503 Superset unreachable.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from app.agent.link_attempt import link_attempt
from app.api.deps import auth_of, require_principal
from app.api.error_shape import error_response
from app.auth import Principal
from app.superset.accounts import Accounts
from app.superset.registry import EnvironmentRegistry

router = APIRouter(prefix="/api/superset", tags=["superset"])
ENV_ID = r"^[A-Za-z0-9_.-]{1,64}$"


class LinkBody(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=False)

    env_id: str = Field(pattern=ENV_ID)
    username: str = Field(min_length=1, max_length=200)
    password: str = Field(min_length=1, max_length=1024, repr=False)


def _registry(request: Request) -> EnvironmentRegistry:
    registry: EnvironmentRegistry = request.app.state.parts.registry
    return registry


def _accounts(registry: EnvironmentRegistry) -> Accounts:
    if registry.accounts is None:
        raise RuntimeError("the registry has no accounts: app.parts.build_parts sets them")
    return registry.accounts


@router.post("/accounts", status_code=201)
async def create_link(
    body: LinkBody, request: Request, principal: Annotated[Principal, Depends(require_principal)]
) -> JSONResponse:
    outcome = await link_attempt(
        auth_of(request), _registry(request), user_id=principal.user_id, env_id=body.env_id,
        username=body.username, password=body.password,
        client=request.client.host if request.client else None,
    )  # fmt: skip
    if outcome.ok:
        return JSONResponse(outcome.link, status_code=201)
    headers = {"Retry-After": str(outcome.retry_after_s)} if outcome.status == 429 else None
    return error_response(outcome.status, outcome.error, outcome.reason, headers=headers)


@router.get("/accounts")
async def list_links(
    request: Request, principal: Annotated[Principal, Depends(require_principal)]
) -> dict[str, Any]:
    views = await _accounts(_registry(request)).links(principal.user_id)
    return {"accounts": [v.as_dict() for v in views]}


@router.delete("/accounts/{env_id}")
async def delete_link(
    env_id: str, request: Request, principal: Annotated[Principal, Depends(require_principal)]
) -> JSONResponse:
    registry = _registry(request)
    gone = await _accounts(registry).unlink(env_id, principal.user_id)
    registry.forget(env_id, principal.user_id)
    if not gone:
        return error_response(404, "not_found", f"no linked Superset account on '{env_id}'")
    return JSONResponse({"env_id": env_id, "unlinked": True})


@router.get("/jwks.json")
async def jwks(request: Request) -> JSONResponse:
    signer = _accounts(_registry(request)).signer
    if signer is None:
        return error_response(404, "not_found", "no assertion key is configured")
    return JSONResponse(signer.jwks(), headers={"Cache-Control": "public, max-age=300"})
