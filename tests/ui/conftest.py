"""Fixtures for the page tests: a private data dir, a fake agent core, sign-in."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from nicegui import storage, ui
from nicegui.testing import User

from app.settings import reset_settings
from tests.ui.fakes import ENVS, FakeCore


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path, monkeypatch):
    """Each test gets its own SQLite file (set before the user fixture runs main.py)."""
    from app.store.db import reset_engine

    monkeypatch.setenv("SS_TOOLS_DEV", "1")
    monkeypatch.setenv("SS_TOOLS_SANDBOX", "0")
    monkeypatch.setenv("SS_TOOLS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SS_TOOLS_ENVIRONMENTS_FILE", str(tmp_path / "environments.toml"))
    monkeypatch.delenv("SS_TOOLS_DATABASE_URL", raising=False)
    reset_settings()
    reset_engine()
    yield
    reset_engine()
    reset_settings()


@pytest.fixture
def core(user: User, monkeypatch) -> FakeCore:
    """The page's agent core, scripted per test (set ``core.replies`` …). It is patched in
    after the user fixture ran main.py, so the page module it patches is the live one."""
    fake = FakeCore(environments=ENVS)
    monkeypatch.setattr("app.pages.agent.core_door", lambda: fake.door())
    return fake


def add_account(username: str, role: str, password: str = "pw-123456") -> None:
    from app.auth import hash_password
    from app.store.db import session_scope
    from app.store.users import create_user

    with session_scope() as session:
        create_user(session, username=username, role=role, password_hash=hash_password(password))


SignIn = Callable[..., Awaitable[None]]


@pytest.fixture
def sign_in(user: User) -> SignIn:
    """Create an account and sign in through /login; lands on ``target``."""

    async def _sign_in(role: str = "admin", target: str = "/agent", username: str = "") -> None:
        name = username or f"{role}-user"
        add_account(name, role)
        from urllib.parse import quote

        await user.open(f"/login?next={quote(target, safe='')}")
        user.find(marker="username").type(name)
        user.find(marker="password").type("pw-123456")
        user.find(kind=ui.button, marker="sign-in").click()
        await user.should_not_see(marker="sign-in", retries=50)
        # Signing in gives the browser a new id (/login/complete). The simulated user's own
        # task still holds the /login request; point it at the signed-in page's request,
        # as NiceGUI does for every websocket event in a real browser, so direct element
        # calls (set_value …) use the signed-in browser's storage.
        assert user.client is not None
        storage.request_contextvar.set(user.client.request)

    return _sign_in


def page_model(user: User):
    """The AgentChatModel of the page the user has open."""
    assert user.client is not None
    return user.client.storage["agent_model"]


def page_controller(user: User):
    """The AgentPageController of the page the user has open."""
    assert user.client is not None
    return user.client.storage["agent_controller"]
