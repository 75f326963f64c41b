"""A change of credentials — a new password, disabling, deleting, a new role — ends the
user's bearer tokens and page sessions within the revocation cache time, and a token from
before stays refused when the change is undone (re-enabled, the old role back, the account
made again): tokens and sessions carry the token stamp they were issued under, and every
change gives the user a new one."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from nicegui.testing import User
from sqlmodel import Session

from app.errors import AuthError
from app.parts import Parts
from app.store import page_sessions
from app.store import users as user_store
from tests.security.conftest import PASSWORD, Live, assert_error_shape, bearer
from tests.support import password_hash_for, principal_for
from tests.ui.fakes import FakeClock

SHORT_CACHE = pytest.mark.app_env(revocation_cache_s=0.3)
CACHE_PASSES_S = 0.4


def _password(s: Session, name: str, role: str) -> None:
    user_store.set_password(s, username=name, password_hash=password_hash_for("new-pass-123456"))


def _disable_then_enable(s: Session, name: str, role: str) -> None:
    user_store.set_disabled(s, username=name, disabled=True)
    user_store.set_disabled(s, username=name, disabled=False)


def _role_and_back(s: Session, name: str, role: str) -> None:
    user_store.set_role(s, username=name, role="analyst" if role == "admin" else "admin")
    user_store.set_role(s, username=name, role=role)


def _delete_and_recreate(s: Session, name: str, role: str) -> None:
    user_store.delete_user(s, username=name)
    user_store.create_user(s, username=name, role=role, password_hash="!")


CHANGES: dict[str, Callable[[Session, str, str], None]] = {
    "password": _password,  # the old password's tokens
    "disable": _disable_then_enable,  # re-enabled later: the old tokens stay dead
    "role": _role_and_back,  # the old role back: the old tokens stay dead
    "delete": _delete_and_recreate,  # a new account of the same name is not the old one
}


@SHORT_CACHE
@pytest.mark.parametrize("change", list(CHANGES))
async def test_a_credential_change_ends_the_old_bearer_token(
    cache_clock: FakeClock, user: User, app_parts: Parts, change: str
) -> None:
    name = f"tok-{change}"
    old = bearer(name, "admin")
    assert (await user.http_client.get("/api/agent/tools", headers=old)).status_code == 200
    with app_parts.db.session() as s:
        CHANGES[change](s, name, "admin")
    cache_clock.advance(CACHE_PASSES_S)
    refused = await user.http_client.get("/api/agent/tools", headers=old)
    assert assert_error_shape(refused, 401)["reason"] == "credentials changed"
    assert_error_shape(await user.http_client.get("/api/audit.csv", headers=old), 403)
    fresh = {"Authorization": f"Bearer {app_parts.auth.issue(username=name, role='admin')[0]}"}
    assert (await user.http_client.get("/api/agent/tools", headers=fresh)).status_code == 200


@SHORT_CACHE
@pytest.mark.parametrize("change", list(CHANGES))
async def test_a_credential_change_ends_the_page_session(
    cache_clock: FakeClock, user: User, core: Any, sign_in: Any, app_parts: Parts, change: str
) -> None:
    name = f"page-{change}"
    await sign_in("admin", username=name)
    await user.should_see(marker="chat-input")
    with app_parts.db.session() as s:
        CHANGES[change](s, name, "admin")
    cache_clock.advance(CACHE_PASSES_S)
    await user.open("/agent")
    await user.should_see(marker="sign-in")  # the session ended at the next check
    with app_parts.db.session() as s:
        assert page_sessions.live_sessions(s, username=name) == []


@SHORT_CACHE
def test_the_pages_in_memory_token_ends_with_the_password(
    cache_clock: FakeClock, parts: Parts
) -> None:
    """A page's model holds a token issued for the visit: it carries the session's stamp."""
    hank = principal_for(parts, "hank", "analyst")
    token, _ = parts.auth.issue(username="hank", role="analyst", stamp=hank.stamp)
    assert parts.auth.verify(token) == hank
    with parts.db.session() as s:
        _password(s, "hank", "analyst")
    cache_clock.advance(CACHE_PASSES_S)
    with pytest.raises(AuthError, match="credentials changed"):
        parts.auth.verify(token)


def test_users_passwd_on_a_real_server_ends_the_old_token(live: Live) -> None:
    """``main.py users passwd`` in another process: the old token is refused within the
    revocation cache time; the new password signs in."""
    live.add("paula", "analyst")
    srv = live.server
    old = srv.token("paula", PASSWORD)
    assert srv.get("/api/agent/tools", old).status_code == 200
    live.users("passwd", "paula", "--password", "another-pass-123")
    time.sleep(1.5)  # SS_TOOLS_REVOCATION_CACHE_S=1 on this server
    refused = srv.get("/api/agent/tools", old)
    assert refused.status_code == 401 and refused.json()["reason"] == "credentials changed"
    assert srv.get("/api/agent/tools", srv.token("paula", "another-pass-123")).status_code == 200
