"""SupersetClient against a scripted Superset (httpx.MockTransport)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from app.errors import (
    SupersetAuthError,
    SupersetError,
    SupersetNotFoundError,
    SupersetRefused,
    SupersetUnavailableError,
    TransientError,
)
from app.superset.client import SupersetClient
from app.superset.http_session import REFRESH_AFTER_S
from tests.superset.fake import PASSWORD, FakeSuperset, make_env


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_logs_in_once_and_reuses_the_token() -> None:
    fake = FakeSuperset()
    fake.route("GET", "/api/v1/dashboard/", {"count": 0, "result": []})
    client = fake.client()
    await client.get_json("/api/v1/dashboard/")
    await client.get_json("/api/v1/dashboard/")
    assert fake.paths().count("POST /api/v1/security/login") == 1
    assert client.logins == 1
    login = fake.requests[0]
    assert login.headers["accept"] == "application/json"
    assert b'"provider":"db"' in login.content.replace(b" ", b"")
    await client.aclose()


async def test_refreshes_the_token_before_the_900s_expiry() -> None:
    clock = Clock()
    fake = FakeSuperset()
    fake.route("GET", "/api/v1/dashboard/", {"result": []})
    client = fake.client(clock=clock)
    await client.get_json("/api/v1/dashboard/")
    clock.now += REFRESH_AFTER_S - 1  # still fresh: no refresh
    await client.get_json("/api/v1/dashboard/")
    assert client.refreshes == 0
    clock.now += 2  # past ~800 s: refresh before Superset's 900 s expiry
    await client.get_json("/api/v1/dashboard/")
    assert client.refreshes == 1
    assert fake.paths().count("POST /api/v1/security/refresh") == 1
    assert fake.requests[-1].headers["authorization"] == "Bearer access-2"
    assert client.logins == 1
    await client.aclose()


async def test_logs_in_again_once_when_superset_answers_401() -> None:
    fake = FakeSuperset()
    fake.route("GET", "/api/v1/dashboard/1", {"result": {"id": 1}})
    client = fake.client()
    await client.get_dashboard(1)
    fake.expire_tokens()  # e.g. Superset restarted with a new secret
    assert await client.get_dashboard(1) == {"id": 1}
    assert client.logins == 2
    await client.aclose()


async def test_persistent_401_becomes_an_auth_error_after_one_relogin() -> None:
    fake = FakeSuperset()
    fake.route("GET", "/api/v1/dashboard/1", lambda r: httpx.Response(401, json={"msg": "no"}))
    client = fake.client()
    with pytest.raises(SupersetAuthError):
        await client.get_dashboard(1)
    assert client.logins == 2  # the first login plus exactly one re-login
    await client.aclose()


async def test_writes_carry_csrf_header_and_session_cookie_reads_do_not() -> None:
    fake = FakeSuperset()
    fake.route("POST", "/api/v1/dataset/", lambda r: httpx.Response(201, json={"id": 7}))
    fake.route("GET", "/api/v1/dashboard/", {"result": []})
    client = fake.client()
    await client.get_json("/api/v1/dashboard/")
    get_req = fake.requests[-1]
    assert "x-csrftoken" not in get_req.headers
    assert await client.create_dataset(1, "orders") == {"id": 7}
    post = fake.requests[-1]
    assert post.headers["x-csrftoken"] == "csrf-token-1"
    assert "session=sess-1" in post.headers["cookie"]
    assert post.headers["referer"] == "http://superset.test/"
    await client.create_dataset(1, "orders2")
    assert fake.paths().count("GET /api/v1/security/csrf_token/") == 1  # fetched once
    await client.aclose()


async def test_expired_csrf_token_is_fetched_again_once() -> None:
    fake = FakeSuperset()
    seen: list[str] = []

    def create(req: httpx.Request) -> httpx.Response:
        seen.append(req.headers["x-csrftoken"])
        if req.headers["x-csrftoken"] == "old":
            return httpx.Response(
                400, json={"message": "400 Bad Request: The CSRF token has expired."}
            )
        return httpx.Response(201, json={"id": 1})

    fake.route("POST", "/api/v1/dataset/", create)
    fake.csrf = "old"
    client = fake.client()
    await client.get_json("/api/v1/security/csrf_token/")  # warm the login
    client._csrf = "old"
    fake.csrf = "new"
    assert await client.create_dataset(1, "t") == {"id": 1}
    assert seen == ["old", "new"]
    await client.aclose()


@pytest.mark.parametrize(
    ("status", "body", "error_type", "message_part"),
    [
        # SIP-40 shape: errors[].message
        (422, {"errors": [{"message": "Dataset exists", "error_type": "X"}]}, SupersetError,
         "Dataset exists"),
        # marshmallow validation: message is a field -> messages mapping
        (400, {"message": {"table_name": ["Missing data for required field."]}}, SupersetError,
         "table_name: Missing data for required field."),
        # plain message string
        (422, {"message": "Forbidden name"}, SupersetError, "Forbidden name"),
        # 404 is its own type
        (404, {"message": "Not found"}, SupersetNotFoundError, "Not found"),
        # 403: Superset refused the account: a typed refusal (an auth error), its words kept
        (403, {"message": "Forbidden"}, SupersetRefused, "Forbidden"),
        # SQL Lab's access errors are 500s, but the account's, not Superset's fault
        (500, {"errors": [{"message": "You need access to the following tables: x",
                           "error_type": "TABLE_SECURITY_ACCESS_ERROR"}]}, SupersetRefused,
         "You need access to the following tables: x"),
        # a database the account may not see is "not found" to it (6.1's base filter)
        (500, {"errors": [{"message": "The database referenced in this query was not found.",
                           "error_type": "GENERIC_BACKEND_ERROR"}]}, SupersetRefused,
         "database referenced in this query was not found"),
        # any other generic backend error stays a transient fault of Superset's
        (500, {"errors": [{"message": "boom", "error_type": "GENERIC_BACKEND_ERROR"}]},
         SupersetUnavailableError, "boom"),
        # 500 with an HTML page: the title is the message, and it is transient
        (500, "<html><title>500 Internal Server Error</title><p>x</p></html>",
         SupersetUnavailableError, "500 Internal Server Error"),
        # 502 from a proxy, no body
        (502, "", SupersetUnavailableError, "(502)"),
    ],
)  # fmt: skip
async def test_error_bodies_are_normalised_into_typed_errors(
    status: int, body: object, error_type: type, message_part: str
) -> None:
    fake = FakeSuperset()

    def reply(_: httpx.Request) -> httpx.Response:
        if isinstance(body, str):
            return httpx.Response(status, text=body, headers={"content-type": "text/html"})
        return httpx.Response(status, json=body)

    fake.route("GET", "/api/v1/thing", reply)
    client = fake.client()
    with pytest.raises(error_type) as info:
        await client.get_json("/api/v1/thing")
    assert type(info.value) is error_type
    assert message_part in info.value.message
    assert "Superset 'dev' GET /api/v1/thing" in info.value.message
    assert info.value.status_code == status
    await client.aclose()


async def test_5xx_and_connection_errors_are_transient() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    client = FakeSuperset().client()
    client._http._transport = httpx.MockTransport(refuse)
    with pytest.raises(SupersetUnavailableError) as info:
        await client.get_json("/api/v1/dashboard/")
    assert isinstance(info.value, TransientError) and info.value.retryable
    assert info.value.status_code is None
    assert "unreachable (ConnectError)" in info.value.message
    await client.aclose()


async def test_sql_lab_engine_error_is_not_transient() -> None:
    fake = FakeSuperset()
    body = {"errors": [{"message": "no such table: nope", "error_type": "GENERIC_DB_ENGINE_ERROR"}]}
    fake.route("POST", "/api/v1/sqllab/execute/", lambda r: httpx.Response(500, json=body))
    client = fake.client()
    with pytest.raises(SupersetError) as info:
        await client.execute_sql(1, "select * from nope")
    assert not isinstance(info.value, TransientError)
    assert "no such table: nope" in info.value.message
    await client.aclose()


@pytest.mark.parametrize(
    "login_status",
    [
        401,  # wrong password
        400,  # malformed login (e.g. provider refused)
        500,  # Superset broken during login (transient)
    ],
)
async def test_no_password_in_any_error_text_or_repr(login_status: int) -> None:
    fake = FakeSuperset(login_status=login_status)
    client = fake.client()
    with pytest.raises((SupersetAuthError, SupersetUnavailableError)) as info:
        await client.get_json("/api/v1/dashboard/")
    texts = [str(info.value), repr(info.value), repr(client), repr(client.env), str(client.env)]
    texts.append(str(info.value.details))
    assert all(PASSWORD not in t for t in texts)
    await client.aclose()


async def test_an_error_message_echoing_the_password_is_scrubbed() -> None:
    fake = FakeSuperset()
    fake.route(
        "GET", "/api/v1/x", lambda r: httpx.Response(422, json={"message": f"bad {PASSWORD}"})
    )
    client = fake.client()
    with pytest.raises(SupersetError) as info:
        await client.get_json("/api/v1/x")
    assert PASSWORD not in info.value.message and "***" in info.value.message
    await client.aclose()


async def test_environment_without_password_fails_login_with_a_clear_message() -> None:
    client = FakeSuperset().client(make_env(password=None, password_env="SS_NOPE"))
    with pytest.raises(SupersetAuthError, match="no password available"):
        await client.get_json("/api/v1/dashboard/")
    await client.aclose()


async def test_health_is_false_when_superset_is_unreachable() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    fake = FakeSuperset()
    fake.route("GET", "/health", lambda r: httpx.Response(200, text="OK"))
    ok = fake.client()
    assert await ok.health() is True
    down = _client_with(refuse)
    assert await down.health() is False
    await ok.aclose()
    await down.aclose()


def _client_with(handler: Any) -> SupersetClient:
    return SupersetClient(make_env(), transport=httpx.MockTransport(handler))


async def test_list_dashboards_sends_a_rison_title_or_slug_filter() -> None:
    fake = FakeSuperset()
    fake.route("GET", "/api/v1/dashboard/", {"count": 0, "result": []})
    client = fake.client()
    await client.list_dashboards("Sales demo", page=1, page_size=10)
    q = fake.requests[-1].url.params["q"]
    assert "(col:dashboard_title,opr:title_or_slug,value:'Sales demo')" in q
    assert "page:1" in q and "page_size:10" in q
    await client.aclose()
