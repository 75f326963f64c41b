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

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from app.api.deps import auth_of, require_principal
from app.api.errors import error_response
from app.auth import Principal
from app.auth.throttle import begin_login, login_failed, login_succeeded
from app.errors import NoEnvironmentError
from app.superset.accounts import Accounts, LinkRefused
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


def throttle_key(env_id: str, username: str) -> str:
    """The sign-in throttle's username key of a link attempt (apart from product logins)."""
    return f"superset:{env_id}:{username}"


async def link_account(
    request: Request, registry: EnvironmentRegistry, principal: Principal, body: LinkBody
) -> JSONResponse:
    """Link ``body``'s account for ``principal`` (the door's work, shared with the page)."""
    try:
        env = registry.get(body.env_id)
    except NoEnvironmentError:
        return error_response(404, "not_found", f"no environment '{body.env_id}'")
    accounts, auth = _accounts(registry), auth_of(request)
    client = request.client.host if request.client else None
    key = throttle_key(env.id, body.username)
    gate = await asyncio.to_thread(begin_login, auth, key, client)
    if not gate.allowed:
        return error_response(
            429, "too_many_requests",
            f"too many sign-in attempts; try again in {gate.retry_after_s} s",
            headers={"Retry-After": str(gate.retry_after_s)},
        )  # fmt: skip
    try:
        view, linked, access = await accounts.link(
            env, principal.user_id, body.username, body.password
        )
    except LinkRefused as refused:
        if refused.error == "superset_login_refused":
            await asyncio.to_thread(login_failed, auth, key, client, gate)
        await accounts.refused_link(
            env.id, principal.user_id, body.username, refused.reason, client
        )
        return error_response(refused.status, refused.error, refused.reason)
    await asyncio.to_thread(login_succeeded, auth, key, client)
    registry.forget(env.id, principal.user_id)  # a client of an older link goes
    registry.client(env.id, principal.user_id, found=linked).prime(access)
    return JSONResponse(view.as_dict(), status_code=201)


@router.post("/accounts", status_code=201)
async def create_link(
    body: LinkBody, request: Request, principal: Annotated[Principal, Depends(require_principal)]
) -> JSONResponse:
    return await link_account(request, _registry(request), principal, body)


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
