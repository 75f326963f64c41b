"""Sign-in throttling: per username and per client, backoff, 429 with
Retry-After on the API and a message on /login, coalesced audit rows, and counters shared
by replicas (they live in the database)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
from nicegui import ui
from nicegui.testing import User

from app.auth import throttle as auth_throttle
from app.store.models import utcnow
from tests.security.conftest import PASSWORD, Live, add_account, assert_error_shape, audit_rows
from tests.server_proc import Server
from tests.waiting import until

TOKEN = "/api/auth/token"


async def _login(user: User, username: str, password: str, client: str = "") -> Any:
    headers = {"x-forwarded-for": client} if client else {}
    return await user.http_client.post(
        TOKEN, json={"username": username, "password": password}, headers=headers
    )


async def test_wrong_passwords_end_in_429_even_for_the_right_one(user: User) -> None:
    add_account("alice", "analyst")
    answers = [(await _login(user, "alice", f"wrong-{i}")).status_code for i in range(8)]
    assert answers == [401] * 5 + [429] * 3
    right = await _login(user, "alice", PASSWORD)
    body = assert_error_shape(right, 429, "too_many_requests")
    assert int(right.headers["retry-after"]) >= 1 and "try again" in body["reason"]


@pytest.mark.app_env(login_max_failures_per_client=6)
async def test_one_client_spraying_usernames_is_throttled(user: User) -> None:
    add_account("bob", "analyst")
    answers = [(await _login(user, f"guess-{i}", "pw")).status_code for i in range(6)]
    assert answers == [401] * 6
    blocked = await _login(user, "bob", PASSWORD)  # another username, same client
    assert blocked.status_code == 429 and "retry-after" in blocked.headers


async def test_failed_sign_ins_are_coalesced_in_the_audit_log(user: User) -> None:
    add_account("carol", "analyst")
    for i in range(40):
        await _login(user, "carol", f"wrong-{i}")
    denied = audit_rows(kind="login", decision="deny")
    throttled = audit_rows(kind="login_throttled")
    assert len(denied) == 1 and denied[0].args["failures"] == 1
    assert len(throttled) == 1 and throttled[0].args["failures"] == 5
    assert "wrong-" not in repr([r.model_dump() for r in denied + throttled])


@pytest.mark.app_env(login_max_failures_per_user=2, login_backoff_s=0.5)
async def test_block_ends_after_the_backoff_and_a_success_clears_the_username(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    now = [utcnow()]  # the throttle's clock, moved by the test alone (a busy machine's
    monkeypatch.setattr(auth_throttle, "utcnow", lambda: now[0])  # seconds don't count)
    add_account("dave", "analyst")
    assert [(await _login(user, "dave", "no")).status_code for _ in range(3)] == [401, 401, 429]
    now[0] += timedelta(seconds=0.6)  # the backoff has passed
    assert (await _login(user, "dave", PASSWORD)).status_code == 200
    assert (await _login(user, "dave", "no")).status_code == 401  # counter cleared


@pytest.mark.app_env(login_max_failures_per_user=3)
async def test_login_page_is_throttled_too(user: User, core: Any) -> None:
    add_account("erin", "admin")
    await user.open("/login")
    password = user.find(marker="password").elements.pop()
    for i in range(3):
        user.find(marker="username").clear().type("erin")
        user.find(marker="password").clear().type(f"wrong-{i}")
        user.find(kind=ui.button, marker="sign-in").click()
        # a refused attempt empties the password field when it is done
        await until(lambda: not password.value, "the attempt never ended")
        await user.should_see("Wrong username or password")
    user.find(marker="username").clear().type("erin")
    user.find(marker="password").clear().type(PASSWORD)  # right, but too late
    user.find(kind=ui.button, marker="sign-in").click()
    await user.should_see("Too many failed sign-ins", retries=30)
    await user.should_see(marker="sign-in")


def test_limits_are_shared_by_two_replicas(live: Live) -> None:
    """Two servers on one database: failures on either count against the same username."""
    live.add("fiona", "analyst")
    a = live.server
    with Server(dict(live.env)) as b:
        codes = []
        for i in range(6):
            srv = a if i % 2 else b
            r = httpx.post(
                srv.url + TOKEN, json={"username": "fiona", "password": f"x{i}"}, timeout=10
            )
            codes.append(r.status_code)
        assert codes == [401] * 5 + [429]
        right = httpx.post(a.url + TOKEN, json={"username": "fiona", "password": PASSWORD})
        assert right.status_code == 429 and "retry-after" in right.headers
