"""Bearer tokens: forged, expired, alg:none and wrong-audience JWTs stay refused (held
probes), and a disabled, deleted or re-roled user's token stops working within the
revocation cache time — in process, and over HTTP on a real server."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Any

import httpx
import pytest
from nicegui.testing import User

from app.agent.core import Caller, RequestRefused, TurnInput, prepare_turn
from app.auth import Principal
from app.errors import AuthError
from app.parts import Parts
from app.store import page_sessions
from app.store import users as user_store
from tests.auth.conftest import hs_token, local_claims, unsigned_token
from tests.security.conftest import (
    PASSWORD,
    Live,
    assert_error_shape,
    audit_rows,
    bearer,
    served,
)
from tests.support import ensure_user
from tests.ui.fakes import FakeClock

SHORT_CACHE = pytest.mark.app_env(revocation_cache_s=0.3)

CONVERSATION = "/api/agent/conversations/c-probe"


def _ours(claims: dict[str, Any]) -> str:
    """Signed with the server's own secret: only the claims are wrong."""
    return hs_token(claims, secret=served().settings.jwt_secret.get_secret_value())


FORGED = {
    "forged-signature": lambda: hs_token(local_claims(), secret="attacker-secret-" + "x" * 40),
    "expired": lambda: _ours(local_claims(exp=int(time.time()) - 3600)),
    "alg-none": lambda: unsigned_token(local_claims(role="admin")),
    "wrong-audience": lambda: _ours(local_claims(aud="another-service")),
}
REASONS = {
    "forged-signature": "bad signature",
    "expired": "expired token",
    "alg-none": "algorithm not allowed",
    "wrong-audience": "wrong audience",
}


@pytest.mark.parametrize("probe", list(FORGED))
async def test_refused_jwt_is_401_with_the_error_shape_and_an_audit_row(
    user: User, app_parts: Parts, probe: str
) -> None:
    ensure_user(app_parts, "alice", "analyst")
    r = await user.http_client.get(
        CONVERSATION, headers={"Authorization": f"Bearer {FORGED[probe]()}"}
    )
    body = assert_error_shape(r, 401, "unauthorized")
    assert body["reason"] == REASONS[probe]
    assert [row.reason for row in audit_rows(kind="auth_failed")] == [REASONS[probe]]


@SHORT_CACHE
@pytest.mark.parametrize(
    ("name", "role", "change", "path", "before", "after"),
    [
        # a disabled user's earlier token stops working within the cache time
        pytest.param("carol", "analyst", partial(user_store.set_disabled, disabled=True),
                     "/api/agent/tools", 200, (401, "user disabled"), id="disabled"),
        # a deleted admin's earlier token cannot download the audit CSV
        pytest.param("dana", "admin", user_store.delete_user, "/api/audit.csv", 200, (403, None),
                     id="deleted-admin"),
        # a role change ends the tokens of the old role
        pytest.param("erin", "admin", partial(user_store.set_role, role="analyst"), CONVERSATION,
                     None, (401, "role changed"), id="role-changed"),
    ],
)  # fmt: skip
async def test_a_changed_users_earlier_token_is_refused_within_the_cache_time(
    cache_clock: FakeClock,
    user: User,
    app_parts: Parts,
    name: str,
    role: str,
    change: Callable[..., object],
    path: str,
    before: int | None,
    after: tuple[int, str | None],
) -> None:
    headers = bearer(name, role)
    if before is not None:  # the token works until the change
        assert (await user.http_client.get(path, headers=headers)).status_code == before
    with app_parts.db.session() as s:
        change(s, username=name)
    cache_clock.advance(0.4)
    status, reason = after
    body = assert_error_shape(await user.http_client.get(path, headers=headers), status)
    if reason is not None:
        assert body["reason"] == reason


def test_revocation_over_http_on_a_real_server(live: Live) -> None:
    """``main.py users disable/delete/role`` in another process: carol's, the deleted
    admin's and the re-roled user's earlier tokens are refused within seconds."""
    for name, role in (("carol", "analyst"), ("root", "admin"), ("frank", "admin")):
        live.add(name, role)
    srv = live.server
    carol, root, frank = (srv.token(n, PASSWORD) for n in ("carol", "root", "frank"))
    stream = {"message": "list environments", "conv_id": "revoked-1"}
    assert srv.post("/api/agent/stream", carol, stream).status_code == 200
    assert srv.get("/api/audit.csv", root).status_code == 200
    live.users("disable", "carol")
    live.users("delete", "root")
    live.users("role", "frank", "--role", "analyst")
    time.sleep(1.5)  # SS_TOOLS_REVOCATION_CACHE_S=1 on this server
    refused = srv.post("/api/agent/stream", carol, {**stream, "conv_id": "revoked-2"})
    assert refused.status_code == 401 and refused.json()["reason"] == "user disabled"
    assert srv.get("/api/audit.csv", root).status_code == 403
    tools = srv.get("/api/agent/tools", frank)
    assert tools.status_code == 401 and tools.json()["reason"] == "role changed"
    assert httpx.get(srv.url + "/api/health", timeout=5).status_code == 200


@SHORT_CACHE
async def test_disabled_user_is_signed_out_of_the_page(
    cache_clock: FakeClock, user: User, core: Any, sign_in: Any, app_parts: Parts
) -> None:
    await sign_in("analyst", username="gina")
    await user.should_see(marker="chat-input")
    with app_parts.db.session() as s:
        user_store.set_disabled(s, username="gina", disabled=True)
        assert page_sessions.live_sessions(s, username="gina")  # still open in the table
    cache_clock.advance(0.4)
    await user.open("/agent")
    await user.should_see(marker="sign-in")  # the session ended at the next check
    with app_parts.db.session() as s:
        assert page_sessions.live_sessions(s, username="gina") == []


@SHORT_CACHE
def test_page_token_is_refused_once_the_user_is_disabled(
    cache_clock: FakeClock, parts: Parts
) -> None:
    """The page's in-memory token goes through the same check as a bearer token, so an
    open page cannot run tools after its user is disabled."""
    ensure_user(parts, "hank", "admin")
    token, _ = parts.auth.issue(username="hank", role="admin")
    assert parts.auth.verify(token).user_id == "hank"
    with parts.db.session() as s:
        user_store.set_disabled(s, username="hank", disabled=True)
    cache_clock.advance(0.4)
    with pytest.raises(AuthError, match="user disabled"):
        parts.auth.verify(token)


@SHORT_CACHE
async def test_open_audit_page_of_a_disabled_admin_goes_to_login(
    user: User, core: Any, sign_in: Any, app_parts: Parts
) -> None:
    await sign_in("admin", target="/audit", username="ivy")
    await user.should_see(marker="audit-table")
    with app_parts.db.session() as s:
        user_store.set_disabled(s, username="ivy", disabled=True)
    await user.should_see(marker="sign-in", retries=40)  # the page's watch timer


@SHORT_CACHE
async def test_an_open_pages_principal_is_checked_again_at_every_turn(app_parts: Parts) -> None:
    """The page hands the core its session's principal; a user disabled since the page
    opened is refused (401, audited) at the next message, not served from the page."""
    ensure_user(app_parts, "hank", "analyst")
    page_principal = Principal(user_id="hank", role="analyst")
    ensure_user(app_parts, "hank", "analyst", disabled=True)
    with pytest.raises(RequestRefused) as refused:
        await prepare_turn(
            TurnInput(message="what can you do?", conv_id="c-hank"),
            core=app_parts.core,
            caller=Caller(principal=page_principal, channel="page"),
        )
    assert (refused.value.status, refused.value.reason) == (401, "user disabled")
    [row] = audit_rows(user="hank", conv_id="c-hank", kind="auth_failed")
    assert row.channel == "page"
