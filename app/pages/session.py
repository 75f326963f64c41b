"""The signed-in user of the pages, kept in ``app.storage.user`` (a signed cookie).

Stored keys: ``token`` (our JWT), ``username``, ``role``, ``lang`` (the user's language
choice) and ``conv_id`` (the open conversation, shared by the browser's tabs).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Literal
from urllib.parse import quote

from nicegui import app, run
from starlette.requests import Request

from app.auth import Principal, authenticate, issue_token, verify_token
from app.errors import AuthError
from app.screen.links import is_local_path
from app.store.db import session_scope

log = logging.getLogger("ss_tools.pages")
SESSION_KEYS = ("token", "username", "role", "conv_id")


@dataclass(frozen=True)
class SessionUser:
    username: str
    role: str
    token: str
    source: Literal["local", "external"] = "local"

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    @property
    def principal(self) -> Principal:
        return Principal(user_id=self.username, role=self.role, source=self.source)


def current_user() -> SessionUser | None:
    """The signed-in user, or None (no token, or it expired / was tampered with)."""
    token = app.storage.user.get("token")
    if not token:
        return None
    try:
        principal = verify_token(token)
    except AuthError as exc:
        log.info("page session dropped: %s", exc)
        sign_out()
        return None
    return SessionUser(
        username=principal.user_id, role=principal.role, token=token, source=principal.source
    )


def _check_credentials(username: str, password: str) -> Principal | None:
    with session_scope() as session:
        return authenticate(session, username=username, password=password)


async def sign_in(username: str, password: str) -> SessionUser | None:
    """Check the credentials (off the event loop) and remember the user; None if wrong."""
    principal = await run.io_bound(_check_credentials, username.strip(), password)
    if principal is None:
        return None
    token, _expires_in = issue_token(username=principal.user_id, role=principal.role)
    app.storage.user.update(token=token, username=principal.user_id, role=principal.role)
    return SessionUser(username=principal.user_id, role=principal.role, token=token)


def sign_out() -> None:
    for key in SESSION_KEYS:
        app.storage.user.pop(key, None)


def request_target(request: Request) -> str:
    """The path + query of this request (what /login?next= brings the user back to)."""
    query = request.url.query
    return request.url.path + (f"?{query}" if query else "")


def login_url(next_path: str) -> str:
    return "/login?next=" + quote(next_path, safe="") if is_local_path(next_path) else "/login"


def safe_next(next_path: str | None) -> str:
    return next_path if next_path and is_local_path(next_path) else "/agent"
