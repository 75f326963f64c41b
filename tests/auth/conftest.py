"""Fixtures for the auth tests: an auth gate built from settings the test configures, token
crafting."""

from __future__ import annotations

import base64
import json
import time
from dataclasses import replace
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import OctKey, RSAKey

from app.auth import AuthGate, Principal
from app.parts import Parts

SECRET = "test-secret-" + "x" * 40
ISSUER = "ss-tools"
AUDIENCE = "ss-tools-agent"


class AuthEnv:
    """The test's parts with an auth gate built from its settings plus the overrides given
    so far (``auth_env(jwks_file=..., jwt_role_claim=...)``: each call adds to them and
    builds a new gate, as a restart with those settings would)."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts
        self.overrides: dict[str, Any] = {"jwt_secret": SECRET}
        self()

    def __call__(self, **values: Any) -> None:
        self.overrides.update(values)
        base = self.parts.settings
        settings = type(base)(**{**base.model_dump(exclude_unset=True), **self.overrides})
        self.parts = replace(self.parts, settings=settings, auth=AuthGate(settings, self.parts.db))

    @property
    def gate(self) -> AuthGate:
        return self.parts.auth

    def issue(self, *, username: str, role: str, ttl_s: int | None = None) -> tuple[str, int]:
        return self.gate.issue(username=username, role=role, ttl_s=ttl_s)

    def verify(self, token: str | None) -> Principal:
        return self.gate.verify(token)

    def decode(self, token: str | None) -> Principal:
        return self.gate.decode(token)


@pytest.fixture
def auth_env(parts: Parts) -> AuthEnv:
    """The test's parts with an auth gate the test configures (see :class:`AuthEnv`)."""
    return AuthEnv(parts)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def claims_of(base: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    """``base`` issued now for 10 minutes (``iat``, ``exp``) with ``overrides``; an
    override of ``None`` drops that claim."""
    now = int(time.time())
    claims: dict[str, Any] = {**base, "iat": now, "exp": now + 600}
    for key, value in overrides.items():
        if value is None:
            claims.pop(key, None)
        else:
            claims[key] = value
    return claims


def local_claims(**overrides: Any) -> dict[str, Any]:
    """The claims of a token this app issues (an analyst, alice), with ``overrides``."""
    base = {"sub": "alice", "role": "analyst", "iss": ISSUER, "aud": AUDIENCE}
    return claims_of(base, **overrides)


def hs_token(claims: dict[str, Any], *, alg: str = "HS256", secret: str = SECRET) -> str:
    return jwt.encode({"alg": alg}, claims, OctKey.import_key(secret), algorithms=[alg])


def unsigned_token(claims: dict[str, Any]) -> str:
    header = b64url(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    return f"{header}.{b64url(json.dumps(claims).encode())}."


def rs_token(claims: dict[str, Any], key: RSAKey, *, kid: str | None = None) -> str:
    header = {"alg": "RS256", "kid": kid if kid is not None else key.kid}
    return jwt.encode(header, claims, key, algorithms=["RS256"])


@pytest.fixture(scope="session")
def rsa_key() -> RSAKey:
    return RSAKey.generate_key(2048, parameters={"kid": "idp-1", "use": "sig", "alg": "RS256"})


@pytest.fixture(scope="session")
def other_rsa_key() -> RSAKey:
    return RSAKey.generate_key(2048, parameters={"kid": "idp-2", "use": "sig", "alg": "RS256"})


def jwks_document(*keys: RSAKey) -> dict[str, Any]:
    return {"keys": [k.as_dict(private=False) for k in keys]}
