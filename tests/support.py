"""Helpers shared by tests."""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import pytest
from nicegui import app as nicegui_app

from app.auth import Principal, hash_password
from app.parts import Parts, installed
from app.policy import resolve_env
from app.store import users
from app.store.audit_log import list_audit
from app.tools import TOOLS
from app.tools.kit import ToolDeps

#: The scrypt cost of the suite's password hashes (``SS_TOOLS_SCRYPT_N`` in tests/conftest.py
#: and tests/server_proc.py); production's cost is held by tests/auth/test_passwords.py.
TEST_SCRYPT_N = 16


def password_hash_for(password: str) -> str:
    """A stored hash of ``password`` at the suite's cheap cost (verifies like any other)."""
    return hash_password(password, n=TEST_SCRYPT_N)


def require_or_skip(condition: bool, reason: str) -> None:
    """Skip the test when ``condition`` is false, or fail it under SS_TOOLS_REQUIRE_ALL=1 (CI)."""
    if condition:
        return
    if os.environ.get("SS_TOOLS_REQUIRE_ALL") == "1":
        pytest.fail(f"required in CI (SS_TOOLS_REQUIRE_ALL=1) but unavailable: {reason}")
    pytest.skip(reason)


def served() -> Parts:
    """The parts of the app under test: the ones the NiceGUI ``user`` fixture's app
    installed (``app.state.parts``; a harness may have put its own core on them)."""
    return installed(nicegui_app)


def ensure_user(
    parts: Parts, username: str, role: str = "admin", *, disabled: bool = False
) -> None:
    """Make ``username`` an account of the parts' database with ``role`` (tokens are only
    honoured for existing, enabled users with the token's role)."""
    with parts.db.session() as session:
        if users.get_user_by_name(session, username=username) is None:
            users.create_user(session, username=username, role=role, password_hash="!")
        users.set_role(session, username=username, role=role)
        users.set_disabled(session, username=username, disabled=disabled)
    parts.auth.forget_user(username)


def principal_for(parts: Parts, user: str = "alice", role: str = "admin") -> Principal:
    """The principal a door verified for ``user`` (made an active account with ``role``):
    with the account's current token stamp, as a verified token or page session has it."""
    ensure_user(parts, user, role)
    with parts.db.session() as session:
        account = users.get_user_by_name(session, username=user)
        assert account is not None
        return Principal(user_id=user, role=role, stamp=account.token_stamp)


def token_for(parts: Parts, user: str = "alice", role: str = "admin") -> str:
    """A token for ``user`` with ``role``; the account is created (or re-roled) first,
    since tokens are honoured only for existing, enabled users with the token's role."""
    ensure_user(parts, user, role)
    return parts.auth.issue(username=user, role=role)[0]


def audit_rows(parts: Parts, **filters: Any) -> list[dict[str, Any]]:
    """The audit rows of the parts' database matching ``filters`` (``list_audit``'s), as
    dicts, newest first."""
    with parts.db.session() as s:
        return [r.model_dump() for r in list_audit(s, **filters)]


async def run_tool(name: str, deps: ToolDeps, **args: Any) -> Any:
    """Tool ``name`` called directly (no guard), on the environment the seam would give it
    (``app.agent.nodes.checked.call_env``): the call's own ``target_env``/``env_id``, else a
    ``resolve_target`` hook's answer (a restore's backup), else ``deps``'s own env_id."""
    decl = TOOLS[name]
    model = decl.spec.args_model(**args)
    values = model.model_dump(mode="json")
    if decl.resolve_target is not None:
        target = await decl.resolve_target(model, deps)
        choice = resolve_env(values, submitted=None if target else deps.env_id, backup_env=target)
    else:
        choice = resolve_env(values, submitted=deps.env_id)
    if choice.source in ("args", "backup"):
        deps = dataclasses.replace(deps, env_id=choice.env_id, env_source=choice.source)
    return await decl.fn(model, deps)
