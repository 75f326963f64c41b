"""Shared pieces of the security probes: HTTP helpers, a real server subprocess
with a few short security settings (Chromium: ``tests/chromium.py``; the graph harness and
the page fixtures are the suite's: tests/conftest.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from nicegui.testing import User

from app.store import users
from app.store.audit_log import list_audit
from tests.agent.harness import token_for
from tests.server_proc import Server, add_user, cli, server_env
from tests.support import password_hash_for, served
from tests.ui.fakes import FakeClock

__all__ = ["served"]

PASSWORD = "correct-horse-battery"
PASSWORD_HASH = password_hash_for(PASSWORD)
LIVE_SETTINGS = {
    "SS_TOOLS_REVOCATION_CACHE_S": "1",
    "SS_TOOLS_LOGIN_MAX_FAILURES_PER_USER": "5",
    "SS_TOOLS_LOGIN_BACKOFF_S": "30",
}


def bearer(user: str = "alice", role: str = "admin") -> dict[str, str]:
    """An Authorization header for ``user`` (made an active account of the app first)."""
    return {"Authorization": f"Bearer {token_for(served(), user, role)}"}


def add_account(username: str, role: str = "admin") -> None:
    """An account with ``PASSWORD`` in the database of the app under test."""
    with served().db.session() as session:
        users.create_user(session, username=username, role=role, password_hash=PASSWORD_HASH)


def audit_rows(**filters: Any) -> list[Any]:
    """Audit rows of the app under test matching ``filters``, newest first."""
    with served().db.session() as session:
        return list_audit(session, **filters)


def assert_error_shape(response: Any, status: int, error: str | None = None) -> dict[str, Any]:
    """The HTTP API's refusal (docs/http-api.md): ``status``, a JSON ``{"error", "reason"}``."""
    assert response.status_code == status, response.text[:300]
    body = response.json()
    assert isinstance(body, dict) and set(body) >= {"error", "reason"}, body
    assert "detail" not in body
    if error is not None:
        assert body["error"] == error, body
    return body


async def post_json(user: User, path: str, body: Any, **headers: str) -> Any:
    return await user.http_client.post(path, json=body, headers=headers)


@pytest.fixture
def cache_clock(request: pytest.FixtureRequest) -> FakeClock:
    """The revocation cache (``AuthGate.statuses``) of the parts under test on a fake clock —
    the app's when the test runs one (``user``), else the test's ``parts``:
    ``cache_clock.advance(s)`` stands for ``s`` seconds passing, without waiting them."""
    parts = request.getfixturevalue("app_parts" if "user" in request.fixturenames else "parts")
    clock = FakeClock()
    parts.auth.statuses.clock = clock
    return clock


class Live:
    """A real ``python main.py`` with its data dir and the CLI bound to it."""

    def __init__(self, data: Path, **settings: str) -> None:
        self.data = data
        self.env = server_env(data, **{**LIVE_SETTINGS, **settings})
        self.server = Server(self.env)

    def users(self, *args: str) -> str:
        return cli(self.env, "users", *args).stdout

    def add(self, name: str, role: str) -> None:
        add_user(self.env, name, role, PASSWORD)

    @property
    def url(self) -> str:
        return self.server.url


@pytest.fixture(scope="session")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """One real server for the probes that need a real process (started once a session;
    each test uses users of its own)."""
    server = Live(tmp_path_factory.mktemp("live"))
    server.server.start()
    yield server
    server.server.stop()
