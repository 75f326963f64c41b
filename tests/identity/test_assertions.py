"""Assertions for ``identity = "assertion"`` environments: short-lived RS256 JWTs naming
the person's Superset username, for one audience; the public key as a JWKS."""

from __future__ import annotations

from pathlib import Path

import pytest
from joserfc import jwt
from joserfc.jwk import RSAKey, import_key
from nicegui.testing import User

from app.errors import ConfigError
from app.settings import Settings
from app.superset.assertions import KEY_FILE_NAME, AssertionSigner, load_signer

KEY = RSAKey.generate_key(2048)


def test_an_assertion_names_issuer_audience_subject_and_a_short_life() -> None:
    now = 1_800_000_000.0
    signer = AssertionSigner(KEY, issuer="ss-tools", ttl_s=120, clock=lambda: now)
    token = signer.sign("alice", "https://superset.example.com")
    public = import_key(signer.jwks()["keys"][0])
    decoded = jwt.decode(token, public, algorithms=["RS256"])
    claims = decoded.claims
    assert (claims["iss"], claims["aud"], claims["sub"]) == (
        "ss-tools", "https://superset.example.com", "alice"
    )  # fmt: skip
    assert claims["exp"] - claims["iat"] == 120 and claims["jti"]
    assert decoded.header["kid"] == signer.kid


def test_an_assertion_is_reused_for_a_while_then_signed_again() -> None:
    clock = [1_800_000_000.0]
    signer = AssertionSigner(KEY, issuer="ss-tools", ttl_s=120, clock=lambda: clock[0])
    first = signer.sign("alice", "aud")
    assert signer.sign("alice", "aud") == first  # one RSA signature serves a minute
    assert signer.sign("bob", "aud") != first and signer.sign("alice", "other") != first
    clock[0] += 61
    assert signer.sign("alice", "aud") != first


@pytest.mark.parametrize("ttl", [0, 301, 3600])
def test_an_assertion_never_lives_longer_than_five_minutes(ttl: int) -> None:
    with pytest.raises(ConfigError, match="at most 300 s"):
        AssertionSigner(KEY, issuer="ss-tools", ttl_s=ttl)


def test_the_jwks_holds_the_public_half_only() -> None:
    (key,) = AssertionSigner(KEY, issuer="ss-tools", ttl_s=60).jwks()["keys"]
    assert (key["kty"], key["alg"], key["use"]) == ("RSA", "RS256", "sig")
    assert not {"d", "p", "q", "dp", "dq", "qi"} & set(key)


def test_the_key_comes_from_its_file_or_dev_mode_generates_one(tmp_path: Path) -> None:
    assert load_signer(Settings(data_dir=tmp_path, dev=False)) is None
    generated = load_signer(Settings(data_dir=tmp_path, dev=True))
    assert generated is not None and (tmp_path / KEY_FILE_NAME).stat().st_mode & 0o777 == 0o600
    again = load_signer(Settings(data_dir=tmp_path, dev=True))
    assert again is not None and again.kid == generated.kid  # kept across restarts
    public = tmp_path / "public.pem"
    public.write_bytes(KEY.as_pem(private=False))
    with pytest.raises(ConfigError, match="public key"):
        load_signer(Settings(superset_assertion_key_file=public))
    (tmp_path / "junk.pem").write_text("not a key")
    with pytest.raises(ConfigError, match="not an RSA private key"):
        load_signer(Settings(superset_assertion_key_file=tmp_path / "junk.pem"))


@pytest.fixture
def assertion_env(tmp_path: Path) -> None:
    (tmp_path / "environments.toml").write_text(
        '[[environment]]\nid = "sso"\nurl = "http://sso.test"\nidentity = "assertion"\n'
    )


async def test_the_jwks_is_published_when_assertions_are_signed(
    assertion_env: None, user: User
) -> None:
    r = await user.http_client.get("/api/superset/jwks.json")
    assert r.status_code == 200
    (key,) = r.json()["keys"]
    assert key["alg"] == "RS256" and "d" not in key
