"""require_principal / require_admin on a tiny FastAPI app (no NiceGUI needed) serving the
test's parts (``app.state.parts``, where the dependencies read the auth gate)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

import pytest
from fastapi import Depends, FastAPI
from fastapi.testclient import TestClient

from app.api.deps import require_admin, require_principal
from app.auth import Principal
from app.store.audit_log import list_audit
from tests.auth.conftest import AuthEnv, hs_token, local_claims
from tests.support import ensure_user


@pytest.fixture
def client(auth_env: AuthEnv) -> Iterator[TestClient]:
    api = FastAPI()
    api.state.parts = auth_env.parts

    @api.get("/me")
    def me(principal: Annotated[Principal, Depends(require_principal)]) -> dict:
        return {"user": principal.user_id, "role": principal.role, "source": principal.source}

    @api.get("/admin-only")
    def admin_only(principal: Annotated[Principal, Depends(require_admin)]) -> dict:
        return {"user": principal.user_id}

    ensure_user(auth_env.parts, "alice", "analyst")
    ensure_user(auth_env.parts, "root", "admin")
    with TestClient(api) as test_client:
        yield test_client


def _audit(auth_env: AuthEnv, kind: str):
    with auth_env.parts.db.session() as session:
        return list_audit(session, kind=kind)


def test_valid_bearer_token_reaches_the_route(client: TestClient, auth_env: AuthEnv) -> None:
    token, _ = auth_env.issue(username="alice", role="analyst")
    response = client.get("/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    assert response.json() == {"user": "alice", "role": "analyst", "source": "local"}
    assert _audit(auth_env, "auth_failed") == []


def test_scheme_name_is_case_insensitive(client: TestClient, auth_env: AuthEnv) -> None:
    token, _ = auth_env.issue(username="alice", role="analyst")
    assert client.get("/me", headers={"Authorization": f"bearer {token}"}).status_code == 200


EXPIRED = hs_token(local_claims(iat=1_000_000, exp=1_000_600))


@pytest.mark.parametrize(
    ("headers", "reason"),
    [
        # no Authorization header
        ({}, "missing token"),
        # Basic instead of Bearer
        ({"Authorization": "Basic YWxpY2U6cHc="}, "malformed token"),
        # Bearer with nothing after it
        ({"Authorization": "Bearer "}, "malformed token"),
        # garbage token
        ({"Authorization": "Bearer not-a-jwt"}, "malformed token"),
        # expired token
        ({"Authorization": f"Bearer {EXPIRED}"}, "expired token"),
        # token signed with another secret
        ({"Authorization": "Bearer " + hs_token(local_claims(), secret="z" * 48)}, "bad signature"),
    ],
)
def test_refused_token_gives_401_json_and_an_audit_row(
    client: TestClient, auth_env: AuthEnv, headers: dict[str, str], reason: str
) -> None:
    response = client.get("/me", headers=headers)
    assert response.status_code == 401
    assert response.json() == {"detail": {"error": "unauthorized", "reason": reason}}
    assert response.headers["www-authenticate"] == "Bearer"
    [row] = _audit(auth_env, "auth_failed")
    assert (row.decision, row.reason) == ("deny", reason)
    assert row.args == {"method": "GET", "path": "/me"}
    token_part = headers.get("Authorization", " ").split(" ", 1)[1]
    if token_part:
        assert token_part not in repr(row.model_dump())


def test_analyst_gets_403_on_an_admin_route(client: TestClient, auth_env: AuthEnv) -> None:
    token, _ = auth_env.issue(username="alice", role="analyst")
    response = client.get("/admin-only", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 403
    assert response.json() == {"detail": {"error": "forbidden", "reason": "admin role required"}}
    [row] = _audit(auth_env, "permission_denied")
    assert (row.user, row.role, row.decision) == ("alice", "analyst", "deny")


def test_admin_passes_an_admin_route(client: TestClient, auth_env: AuthEnv) -> None:
    token, _ = auth_env.issue(username="root", role="admin")
    response = client.get("/admin-only", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200 and response.json() == {"user": "root"}


def test_admin_route_without_token_is_401_not_403(client: TestClient, auth_env: AuthEnv) -> None:
    assert client.get("/admin-only").status_code == 401
