"""Fixtures for the auth tests: settings driven through the environment, token crafting."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import OctKey, RSAKey

from app.auth.jwks import reset_jwks_cache
from app.settings import reset_settings

SECRET = "test-secret-" + "x" * 40
ISSUER = "ss-tools"
AUDIENCE = "ss-tools-agent"


@pytest.fixture
def auth_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Set SS_TOOLS_* variables (keyword = setting name) and re-read settings."""
    monkeypatch.setenv("SS_TOOLS_JWT_SECRET", SECRET)
    for name in (
        "JWKS_URL",
        "JWKS_FILE",
        "EXTERNAL_ISSUER",
        "EXTERNAL_AUDIENCE",
        "JWT_ROLE_CLAIM",
        "JWT_SECRET_FILE",
    ):
        monkeypatch.delenv(f"SS_TOOLS_{name}", raising=False)

    def configure(**values: Any) -> None:
        for key, value in values.items():
            monkeypatch.setenv(f"SS_TOOLS_{key.upper()}", str(value))
        reset_settings()
        reset_jwks_cache()

    configure()
    yield configure
    reset_settings()
    reset_jwks_cache()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def local_claims(**overrides: Any) -> dict[str, Any]:
    now = int(time.time())
    claims: dict[str, Any] = {
        "sub": "alice",
        "role": "analyst",
        "iss": ISSUER,
        "aud": AUDIENCE,
        "iat": now,
        "exp": now + 600,
    }
    for key, value in overrides.items():
        if value is None:
            claims.pop(key, None)
        else:
            claims[key] = value
    return claims


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
