"""POST/GET/DELETE /api/superset/accounts: a person links their Superset account once per
environment; the password is used for one sign-in and found nowhere afterwards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from nicegui.testing import User

from app.parts import Parts
from tests.api.test_agent_api import bearer
from tests.identity.people_fake import PeopleSuperset
from tests.support import audit_rows

ENVS = """
[[environment]]
id = "dev"
url = "http://people.test"
identity = "person"

[[environment]]
id = "svc"
url = "http://svc.test"
password = "service-pw"
"""


@pytest.fixture
def people(tmp_path: Path) -> PeopleSuperset:
    """A scripted multi-user Superset behind the app's person environment ``dev`` (the
    environments file is written before the app starts; the transport swapped after)."""
    (tmp_path / "environments.toml").write_text(ENVS)
    return PeopleSuperset()


@pytest.fixture
def served_people(people: PeopleSuperset, app_parts: Parts) -> PeopleSuperset:
    registry = app_parts.registry
    assert registry.accounts is not None
    registry.transport = registry.accounts._transport = people.transport()
    return people


async def _post(user: User, body: dict[str, Any], who: str = "carol") -> Any:
    return await user.http_client.post(
        "/api/superset/accounts", json=body, headers=bearer(who, "analyst")
    )


async def test_link_list_and_unlink(served_people: PeopleSuperset, user: User) -> None:
    r = await _post(user, {"env_id": "dev", "username": "ann", "password": "ann-pw-1"})
    assert r.status_code == 201
    body = r.json()
    assert (body["env_id"], body["username"]) == ("dev", "ann")
    assert body["linked_at"] and body["expires_at"]
    listed = await user.http_client.get(
        "/api/superset/accounts", headers=bearer("carol", "analyst")
    )
    assert [a["username"] for a in listed.json()["accounts"]] == ["ann"]
    assert "refresh" not in listed.text and "ann-pw-1" not in listed.text
    other = await user.http_client.get("/api/superset/accounts", headers=bearer("dave", "analyst"))
    assert other.json() == {"accounts": []}  # one's links are one's own
    gone = await user.http_client.delete(
        "/api/superset/accounts/dev", headers=bearer("carol", "analyst")
    )
    assert gone.status_code == 200 and gone.json() == {"env_id": "dev", "unlinked": True}
    again = await user.http_client.delete(
        "/api/superset/accounts/dev", headers=bearer("carol", "analyst")
    )
    assert again.status_code == 404 and again.json()["error"] == "not_found"
    kinds = [(r["kind"], r["decision"]) for r in audit_rows(user_parts(), user="carol")]
    assert ("superset_link", "allow") in kinds and ("superset_unlink", "allow") in kinds


def user_parts() -> Parts:
    from tests.support import served

    return served()


@pytest.mark.parametrize(
    ("body", "status", "error", "reason"),
    [
        # Superset's own reason for a wrong password, in the API's one shape
        ({"env_id": "dev", "username": "ann", "password": "pw-Q7z"}, 422,
         "superset_login_refused", "Not authorized"),
        # an environment that signs in with its service account links no one
        ({"env_id": "svc", "username": "ann", "password": "pw-Q7z"}, 422, "invalid_request",
         "does not link accounts"),
        ({"env_id": "nowhere", "username": "ann", "password": "pw-Q7z"}, 404, "not_found",
         "no environment"),
        # the body is checked before anything is sent; the value is never echoed
        ({"env_id": "dev", "username": "ann", "password": ""}, 422, "invalid_request",
         "body.password"),
        ({"env_id": "dev", "username": "ann", "password": "pw-Q7z", "extra": 1}, 422,
         "invalid_request", "body.extra"),
    ],
)  # fmt: skip
async def test_a_refused_link_is_a_4xx_with_a_reason_and_an_audit_row(
    served_people: PeopleSuperset,
    user: User,
    body: dict[str, Any],
    status: int,
    error: str,
    reason: str,
) -> None:
    r = await _post(user, body)
    assert (r.status_code, r.json()["error"]) == (status, error)
    assert reason in r.json()["reason"]
    assert body["password"] not in r.text or not body["password"]
    if status == 422 and error != "invalid_request":
        rows = audit_rows(user_parts(), kind="superset_link")
        assert [(x["decision"], x["env"]) for x in rows] == [("deny", "dev")]
        assert body["password"] not in repr(rows)


@pytest.mark.app_env(login_max_failures_per_user=2)
async def test_link_attempts_count_against_the_sign_in_throttle(
    served_people: PeopleSuperset, user: User
) -> None:
    wrong = {"env_id": "dev", "username": "ann", "password": "nope"}
    codes = [(await _post(user, wrong)).status_code for _ in range(3)]
    assert codes == [422, 422, 429]
    blocked = await _post(user, {**wrong, "password": "ann-pw-1"})
    assert blocked.status_code == 429 and int(blocked.headers["Retry-After"]) >= 1
    logins = [p for _, p, _ in served_people.seen if p == "/api/v1/security/login"]
    assert len(logins) == 2  # the blocked attempts never reached Superset


async def test_linking_needs_a_bearer_token(served_people: PeopleSuperset, user: User) -> None:
    r = await user.http_client.post(
        "/api/superset/accounts", json={"env_id": "dev", "username": "ann", "password": "x"}
    )
    assert r.status_code == 401
    assert served_people.seen == []


async def test_no_jwks_without_an_assertion_key(served_people: PeopleSuperset, user: User) -> None:
    r = await user.http_client.get("/api/superset/jwks.json")
    assert r.status_code == 404 and r.json()["error"] == "not_found"
