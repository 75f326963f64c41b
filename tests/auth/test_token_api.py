"""POST /api/auth/token through the real app (NiceGUI user fixture + user.http_client)."""

from __future__ import annotations

from typing import Any

import pytest
from nicegui.testing import User

from app.parts import Parts
from app.store import users
from app.store.audit_log import list_audit
from tests.support import password_hash_for

PASSWORD = "correct-horse-battery"
PASSWORD_HASH = password_hash_for(PASSWORD)


@pytest.fixture
def accounts(app_parts: Parts) -> Parts:
    """The app's parts, with three accounts (``gone`` disabled)."""
    with app_parts.db.session() as session:
        users.create_user(session, username="alice", role="analyst", password_hash=PASSWORD_HASH)
        users.create_user(session, username="root", role="admin", password_hash=PASSWORD_HASH)
        users.create_user(session, username="gone", role="admin", password_hash=PASSWORD_HASH)
        users.set_disabled(session, username="gone", disabled=True)
    return app_parts


async def _sign_in(user: User, username: str, password: str) -> Any:
    """POST /api/auth/token with ``username`` and ``password``."""
    return await user.http_client.post(
        "/api/auth/token", json={"username": username, "password": password}
    )


def _audit(parts: Parts, kind: str):
    with parts.db.session() as session:
        return list_audit(session, kind=kind)


@pytest.mark.parametrize("username,role", [("alice", "analyst"), ("root", "admin")])
async def test_good_credentials_get_a_bearer_token(
    accounts, user: User, username: str, role: str
) -> None:
    response = await _sign_in(user, username, PASSWORD)
    assert response.status_code == 200
    body = response.json()
    assert body["token_type"] == "bearer" and body["role"] == role
    assert body["expires_in"] == 8 * 3600
    assert accounts.auth.verify(body["access_token"]).user_id == username
    [row] = _audit(accounts, "login")
    assert (row.user, row.role, row.decision) == (username, role, "allow")
    assert PASSWORD not in repr(row.model_dump())


@pytest.mark.parametrize(
    ("username", "password"),
    [
        # right user, wrong password
        ("alice", "wrong-password"),
        # user that does not exist (same answer: no user enumeration)
        ("mallory", PASSWORD),
        # disabled user with the right password
        ("gone", PASSWORD),
        # username differs only in case
        ("ALICE", PASSWORD),
    ],
)
async def test_bad_credentials_get_401_and_a_deny_audit_row(
    accounts, user: User, username: str, password: str
) -> None:
    response = await _sign_in(user, username, password)
    assert response.status_code == 401
    assert response.json() == {"error": "unauthorized", "reason": "invalid username or password"}
    [row] = _audit(accounts, "login")
    assert (row.user, row.decision, row.reason) == (
        username,
        "deny",
        "invalid username or password",
    )
    assert password not in repr(row.model_dump())


@pytest.mark.parametrize(
    "body",
    [
        # no password field
        {"username": "alice"},
        # empty username
        {"username": "", "password": PASSWORD},
        # wrong type
        {"username": "alice", "password": 12345678},
        # unknown extra field
        {"username": "alice", "password": PASSWORD, "role": "admin"},
        # not an object
        ["alice", PASSWORD],
    ],
)
async def test_malformed_body_is_422_and_issues_nothing(accounts, user: User, body) -> None:
    response = await user.http_client.post("/api/auth/token", json=body)
    assert response.status_code == 422
    assert "access_token" not in response.text
    assert _audit(accounts, "login") == []


async def test_non_json_body_is_422(accounts, user: User) -> None:
    response = await user.http_client.post(
        "/api/auth/token",
        content=b"username=alice&password=x",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert response.status_code == 422


@pytest.mark.parametrize(
    "body",
    [
        b'{"username": "\xff", "password": "x"}',  # not UTF-8 (was 400, unlike every other route)
        b"[" * 100_000,  # nested too deeply for the JSON decoder (was 400)
        b'{"username": "alice", ',  # cut short
        b"\xff\xfe",  # not text at all
    ],
)
async def test_unparsable_json_is_422_like_every_other_route(accounts, user: User, body) -> None:
    response = await user.http_client.post(
        "/api/auth/token", content=body, headers={"Content-Type": "application/json"}
    )
    assert response.status_code == 422, response.text
    assert response.json()["error"] == "invalid_request"
    assert "access_token" not in response.text and "alice" not in response.text
    assert _audit(accounts, "login") == []


async def test_refused_bearer_token_on_the_api_writes_an_auth_failed_row(
    accounts, user: User
) -> None:
    response = await user.http_client.get(
        "/api/agent/conversations/c1", headers={"Authorization": "Bearer forged.token.here"}
    )
    assert response.status_code == 401
    rows = _audit(accounts, "auth_failed")
    assert [(r.decision, r.reason) for r in rows] == [("deny", "malformed token")]
    assert "forged.token.here" not in repr(rows[0].model_dump())
