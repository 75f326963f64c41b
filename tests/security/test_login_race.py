"""The sign-in throttle is no check-then-act race. 16 wrong passwords for one user sent at
once, through ``POST /api/auth/token``, on SQLite and on a real PostgreSQL: at most the
limit (5) are checked, the others get 429, and the username's counter equals the number of
attempts (no update is lost)."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from nicegui.testing import User
from sqlmodel import select

import app.auth.login as login
from app.store.models import LoginThrottle
from tests.security.conftest import add_account
from tests.support import served

ATTEMPTS = 16
LIMIT = 5  # SS_TOOLS_LOGIN_MAX_FAILURES_PER_USER's default


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The app under test's database (set before the ``user`` fixture starts it)."""
    if request.param == "postgres":
        monkeypatch.setenv("SS_TOOLS_DATABASE_URL", request.getfixturevalue("pg_url"))
    return str(request.param)


@pytest.fixture
def password_checks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every password check, each made slow (50 ms) so that simultaneous attempts overlap
    the way they do under a real KDF."""
    checks: list[str] = []
    lock = threading.Lock()
    real = login.verify_password

    def counted(password: str, hashed: str) -> bool:
        with lock:
            checks.append(password)
        time.sleep(0.05)
        return real(password, hashed)

    monkeypatch.setattr(login, "verify_password", counted)
    yield checks


async def test_simultaneous_wrong_passwords_check_at_most_the_limit_and_count_every_one(
    backend: str, user: User, password_checks: list[str]
) -> None:
    name = f"victim-{uuid.uuid4().hex[:8]}"
    add_account(name, "analyst")

    async def attempt(i: int) -> Any:
        return await user.http_client.post(
            "/api/auth/token", json={"username": name, "password": f"wrong-{i}"}
        )

    answers = await asyncio.gather(*(attempt(i) for i in range(ATTEMPTS)))
    codes = sorted(r.status_code for r in answers)
    assert len(password_checks) <= LIMIT, password_checks
    assert codes.count(401) == len(password_checks) and codes.count(429) == ATTEMPTS - len(
        password_checks
    )
    assert all("retry-after" in r.headers for r in answers if r.status_code == 429)
    with served().db.session() as s:
        row = s.exec(select(LoginThrottle).where(LoginThrottle.key == f"user:{name}")).one()
    assert row.failures == ATTEMPTS  # every attempt counted, none lost
    assert served().db.status()["dialect"] == ("postgresql" if backend == "postgres" else backend)
