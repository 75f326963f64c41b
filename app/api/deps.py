"""Where the HTTP door finds the app's parts: ``request.app.state.parts`` (installed by
``create_app``; see ``app.parts``), read per request, so a rebuilt app's routes serve the
newest parts. Typed readers of the parts a route uses, and the auth dependencies
``require_principal`` / ``require_admin`` (FastAPI ``Depends``).

The door names no ``Parts`` type (that would tie it to every part): it reads the pieces
it uses — the core, the auth gate, the database.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Depends, Request

from app.agent.core import AgentCore
from app.auth import AuthGate, Principal
from app.auth.request_auth import request_admin, request_principal
from app.store.db import Database


def _parts(request: Request) -> Any:
    return request.app.state.parts


def core_of(request: Request) -> AgentCore:
    """The app's agent core."""
    core: AgentCore = _parts(request).core
    return core


def auth_of(request: Request) -> AuthGate:
    """The app's auth gate."""
    auth: AuthGate = _parts(request).auth
    return auth


def db_of(request: Request) -> Database:
    """The app's database."""
    db: Database = _parts(request).db
    return db


def require_principal(request: Request) -> Principal:
    """The verified, still-active caller, or 401 (a plain ``def``: FastAPI runs it in its
    thread pool, so the user check and the audit insert never block the event loop)."""
    return request_principal(auth_of(request), request)


def require_admin(
    request: Request, principal: Annotated[Principal, Depends(require_principal)]
) -> Principal:
    """The caller if it is an admin, else 403 ``{"error": "forbidden", ...}``."""
    return request_admin(auth_of(request), request, principal)
