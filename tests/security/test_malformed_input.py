"""Malformed and oversized input: one error shape, no echo, no
traceback, no password in the logs, 413 before parsing."""

from __future__ import annotations

import logging
from typing import Any

import httpx
import pytest
from nicegui.testing import User

from app.store.db import Database
from tests.security.conftest import PASSWORD, Live, add_account, assert_error_shape, bearer

SURROGATE_LOGIN = b'{"username":"\\ud800","password":"pw-never-logged-7d1"}'
SURROGATE_BODIES = {
    "/api/auth/token": SURROGATE_LOGIN,
    "/api/agent/stream": b'{"message":"hi \\udfff","conv_id":"c-sur"}',
    "/api/agent/resume": b'{"conv_id":"c","confirmation_id":"\\ud83d","decision":"confirm"}',
}


@pytest.mark.parametrize("path", list(SURROGATE_BODIES))
async def test_lone_surrogate_is_a_422_with_the_error_shape(
    user: User, path: str, caplog: pytest.LogCaptureFixture
) -> None:
    headers = {"content-type": "application/json", **bearer()}
    r = await user.http_client.post(path, content=SURROGATE_BODIES[path], headers=headers)
    body = assert_error_shape(r, 422, "invalid_request")
    assert "surrogate" in body["reason"] and "pw-never-logged" not in r.text
    assert "pw-never-logged" not in caplog.text and "Traceback" not in caplog.text


def test_lone_surrogate_on_a_real_server_logs_no_password_and_no_traceback(live: Live) -> None:
    logged_before = live.server.log_path.stat().st_size  # the shared server's earlier lines
    for path, body in SURROGATE_BODIES.items():
        r = httpx.post(live.url + path, content=body, headers={"content-type": "application/json"})
        assert r.status_code in (401, 422), (path, r.status_code)  # 401: no token first
        assert set(r.json()) >= {"error", "reason"}
    log = live.server.log_path.read_bytes()[logged_before:].decode(errors="replace")
    assert "pw-never-logged" not in log and "Traceback" not in log


@pytest.mark.parametrize(
    ("headers", "content"),
    [
        ({"content-length": str(2 * 1024 * 1024)}, b"{}"),  # a declared size over the cap
        ({}, b'{"username":"' + b"a" * (2 * 1024 * 1024) + b'","password":"x"}'),  # real body
    ],
    ids=["declared-content-length", "streamed-body"],
)
async def test_oversized_body_is_413_before_parsing_and_not_echoed(
    user: User, headers: dict[str, str], content: bytes
) -> None:
    async def chunks() -> Any:  # no Content-Length at all: the guard counts as it streams
        for i in range(0, len(content), 65536):
            yield content[i : i + 65536]

    body: Any = content if headers else chunks()
    r = await user.http_client.post(
        "/api/auth/token",
        content=body,
        headers={"content-type": "application/json", **headers},
    )
    reply = assert_error_shape(r, 413, "payload_too_large")
    assert len(r.content) < 300 and "aaaa" not in reply["reason"]


async def test_validation_error_names_the_field_never_the_input(user: User) -> None:
    secret_value = "x" * 5000 + "never-echoed"
    r = await user.http_client.post(
        "/api/auth/token", json={"username": secret_value, "password": "pw"}
    )
    body = assert_error_shape(r, 422, "invalid_request")
    assert "body.username" in body["reason"] and "never-echoed" not in r.text


async def test_unknown_api_path_and_method_have_the_error_shape(user: User) -> None:
    assert_error_shape(await user.http_client.get("/api/nope"), 404, "not_found")
    assert_error_shape(await user.http_client.get("/api/auth/token"), 405, "method_not_allowed")


async def test_unexpected_error_is_a_500_without_its_message_in_the_logs(
    user: User, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*_: Any, **__: Any) -> Any:
        raise RuntimeError("db password is hunter2-secret")

    monkeypatch.setattr(Database, "status", broken)
    with caplog.at_level(logging.ERROR, logger="ss_tools.api"):
        r = await user.http_client.get("/api/health")
    body = assert_error_shape(r, 500, "internal_error")
    assert "hunter2" not in r.text and "hunter2" not in caplog.text
    assert "RuntimeError" in caplog.text and "/api/health" in caplog.text
    assert body["reason"]
    caplog.clear()  # the ERROR line is expected here


async def test_wrong_password_body_never_reaches_the_audit_or_logs(
    user: User, caplog: pytest.LogCaptureFixture
) -> None:
    add_account("alice", "analyst")
    r = await user.http_client.post(
        "/api/auth/token", json={"username": "alice", "password": PASSWORD + "-wrong"}
    )
    assert_error_shape(r, 401, "unauthorized")
    assert PASSWORD not in caplog.text
