"""Fixtures for the page tests: a private data dir, the app's parts, a fake agent core,
sign-in.

The ``user`` fixture runs main.py, whose ``create_app()`` builds the parts from the
environment set here and installs them (``app.state.parts``); ``parts`` is those."""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from urllib.parse import quote

import pytest
from nicegui import app, storage, ui
from nicegui.testing import User

from app.auth import hash_password
from app.parts import Parts, installed
from app.store.users import create_user
from tests.ui.fakes import ENVS, FakeCore


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path, monkeypatch):
    """Each test gets its own SQLite file (set before the user fixture runs main.py)."""
    monkeypatch.setenv("SS_TOOLS_DEV", "1")
    monkeypatch.setenv("SS_TOOLS_SANDBOX", "0")
    monkeypatch.setenv("SS_TOOLS_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SS_TOOLS_ENVIRONMENTS_FILE", str(tmp_path / "environments.toml"))
    monkeypatch.delenv("SS_TOOLS_DATABASE_URL", raising=False)


@pytest.fixture
def parts(user: User) -> Parts:
    """The parts the app under test installed (main.py's ``create_app()``)."""
    return installed(app)


@pytest.fixture
def core(user: User, monkeypatch) -> FakeCore:
    """The page's agent core, scripted per test (set ``core.replies`` …). It is patched in
    after the user fixture ran main.py, so the page module it patches is the live one."""
    fake = FakeCore(environments=ENVS)
    page = importlib.import_module("app.pages.agent")  # the module main.py's app imported
    monkeypatch.setattr(page, "core_door", lambda _core: fake.door())
    return fake


def add_account(parts: Parts, username: str, role: str, password: str = "pw-123456") -> None:
    with parts.db.session() as session:
        create_user(session, username=username, role=role, password_hash=hash_password(password))


SignIn = Callable[..., Awaitable[None]]


@pytest.fixture
def sign_in(user: User, parts: Parts) -> SignIn:
    """Create an account and sign in through /login; lands on ``target``."""

    async def _sign_in(role: str = "admin", target: str = "/agent", username: str = "") -> None:
        name = username or f"{role}-user"
        add_account(parts, name, role)
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
