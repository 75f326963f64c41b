"""Helpers shared by tests."""

from __future__ import annotations

import os

import pytest

from app.auth import forget_user
from app.store import users
from app.store.db import session_scope


def require_or_skip(condition: bool, reason: str) -> None:
    """Skip the test when ``condition`` is false, or fail it under SS_TOOLS_REQUIRE_ALL=1 (CI)."""
    if condition:
        return
    if os.environ.get("SS_TOOLS_REQUIRE_ALL") == "1":
        pytest.fail(f"required in CI (SS_TOOLS_REQUIRE_ALL=1) but unavailable: {reason}")
    pytest.skip(reason)


def ensure_user(username: str, role: str = "admin", *, disabled: bool = False) -> None:
    """Make ``username`` an account of the app's database with ``role`` (tokens are only
    honoured for existing, enabled users with the token's role)."""
    with session_scope() as session:
        if users.get_user_by_name(session, username=username) is None:
            users.create_user(session, username=username, role=role, password_hash="!")
        users.set_role(session, username=username, role=role)
        users.set_disabled(session, username=username, disabled=disabled)
    forget_user(username)
