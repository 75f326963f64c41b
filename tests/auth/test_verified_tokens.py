"""Verified tokens are remembered (so a request costs little on the core) without weakening
auth: a remembered token never outlives its ``exp`` or the cache's minute, a bad token is
refused every time, and revocation (disable, delete, re-role) still ends a remembered
token within its window."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from sqlmodel import Session

from app.auth import AuthGate, Principal
from app.auth.caches import VerifiedTokens
from app.auth.tokens import issue_token
from app.errors import AuthError
from app.parts import Parts
from app.settings import Settings
from app.store import users
from tests.support import ensure_user, principal_for


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def _gate(parts: Parts, clock: Clock) -> AuthGate:
    return AuthGate(parts.settings, parts.db, tokens=VerifiedTokens(60.0, clock=clock))


def test_a_remembered_token_is_answered_without_checking_it_again(parts: Parts) -> None:
    alice = principal_for(parts, "alice", "admin")  # with the account's token stamp
    token = parts.auth.issue(username="alice", role="admin")[0]
    assert parts.auth.cached_token(token) is None
    assert parts.auth.verify(token) == alice
    assert parts.auth.cached_token(token) == alice
    assert parts.auth.cached_token(f"  {token} ") == alice


def test_a_remembered_token_never_outlives_its_expiry(parts: Parts) -> None:
    clock = Clock(time.time())
    gate = _gate(parts, clock)
    ensure_user(parts, "alice", "admin")
    token = issue_token(parts.settings, username="alice", role="admin", ttl_s=30)[0]
    assert gate.decode(token).user_id == "alice"
    clock.now += 29
    assert gate.cached_token(token) is not None
    clock.now += 2  # past exp (30 s), though within the cache's minute
    assert gate.cached_token(token) is None


def test_a_remembered_token_is_checked_again_after_a_minute() -> None:
    clock = Clock(1000.0)
    tokens = VerifiedTokens(60.0, clock=clock)
    tokens.put("t", Principal("alice", "admin"), exp=10_000.0)
    clock.now += 59
    assert tokens.get("t") == Principal("alice", "admin")
    clock.now += 2
    assert tokens.get("t") is None


def test_a_bad_token_is_refused_every_time_and_never_remembered(parts: Parts) -> None:
    ensure_user(parts, "alice", "admin")
    token = parts.auth.issue(username="alice", role="admin")[0]
    head, body, sig = token.split(".")
    forged = f"{head}.{body}.{sig[:-2]}{'AA' if sig[-2:] != 'AA' else 'BB'}"
    for _ in range(2):
        with pytest.raises(AuthError):
            parts.auth.decode(forged)
        assert parts.auth.cached_token(forged) is None
    other = Settings(**{**parts.settings.model_dump(), "jwt_secret": "another-secret-" * 3})
    stranger = issue_token(other, username="alice", role="admin")[0]
    with pytest.raises(AuthError, match="bad signature"):
        parts.auth.decode(stranger)


@pytest.mark.parametrize("change", ["disable", "delete", "re-role"])
def test_revocation_still_ends_a_remembered_token(parts: Parts, change: str) -> None:
    ensure_user(parts, "alice", "admin")
    token = parts.auth.issue(username="alice", role="admin")[0]
    assert parts.auth.verify(token).user_id == "alice"  # remembered now
    with parts.db.session() as session:
        _revoke(session, change)
    parts.auth.forget_user("alice")  # a change made in this process applies at once
    assert parts.auth.cached_token(token) is not None  # the signature is still good...
    with pytest.raises(AuthError):  # ...but the user may no longer act
        parts.auth.verify(token)


def test_revocation_by_another_replica_ends_a_remembered_token_within_the_window(
    make_parts: Callable[..., Parts],
) -> None:
    """The window is ``revocation_cache_s`` (here 0: the next request sees the change)."""
    parts = make_parts(revocation_cache_s=0)
    ensure_user(parts, "alice", "admin")
    token = parts.auth.issue(username="alice", role="admin")[0]
    assert parts.auth.verify(token).user_id == "alice"
    with parts.db.session() as session:  # another replica disables alice: no forget_user here
        users.set_disabled(session, username="alice", disabled=True)
    assert parts.auth.cached_token(token) is not None
    with pytest.raises(AuthError, match="user disabled"):
        parts.auth.verify(token)


def _revoke(session: Session, change: str) -> None:
    if change == "disable":
        users.set_disabled(session, username="alice", disabled=True)
    elif change == "delete":
        users.delete_user(session, username="alice")
    else:
        users.set_role(session, username="alice", role="analyst")
