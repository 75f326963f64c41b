"""External IdP tokens (RS256 via a JWKS file or URL) and algorithm confusion."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from joserfc.jwk import RSAKey

from app.auth import Principal
from app.errors import AuthError
from tests.auth.conftest import b64url, claims_of, jwks_document, local_claims, rs_token

EXT_ISS = "https://idp.example/realms/ops"
EXT_AUD = "ss-tools"


def ext_claims(**overrides: Any) -> dict[str, Any]:
    """The claims of a token the external IdP issues (carol, an admin in its realm)."""
    realm = {"roles": ["offline_access", "admin"]}
    base = {"sub": "carol", "iss": EXT_ISS, "aud": EXT_AUD, "realm_access": realm}
    return claims_of(base, **overrides)


@pytest.fixture
def jwks_file(tmp_path: Path, rsa_key: RSAKey, auth_env) -> Path:
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(jwks_document(rsa_key)))
    auth_env(
        jwks_file=path,
        external_issuer=EXT_ISS,
        external_audience=EXT_AUD,
        jwt_role_claim="realm_access.roles",
    )
    return path


@pytest.mark.parametrize(
    ("claims", "role"),
    [
        # nested list claim holding "admin" -> admin
        (ext_claims(), "admin"),
        # nested list claim without "admin" -> analyst
        (ext_claims(realm_access={"roles": ["viewer", "offline_access"]}), "analyst"),
        # audience given as a list that contains ours
        (ext_claims(aud=["account", EXT_AUD]), "admin"),
    ],
)
def test_rs256_token_from_jwks_file_is_accepted_with_role_from_nested_claim(
    jwks_file, auth_env, rsa_key: RSAKey, claims: dict[str, Any], role: str
) -> None:
    principal = auth_env.verify(rs_token(claims, rsa_key))
    assert principal == Principal(
        user_id=f"{EXT_ISS}#carol", role=role, source="external", issuer=EXT_ISS, subject="carol"
    )


@pytest.mark.parametrize(
    ("claim_name", "claims", "role"),
    [
        # flat string claim naming a product role
        ("role", ext_claims(role="analyst"), "analyst"),
        # flat list claim
        ("groups", ext_claims(groups=["admin"]), "admin"),
        # deeper dotted path
        (
            "resource_access.ss-tools.roles",
            ext_claims(resource_access={"ss-tools": {"roles": ["viewer"]}}),
            "analyst",
        ),
    ],
)
def test_role_claim_name_is_configurable(
    jwks_file, auth_env, rsa_key: RSAKey, claim_name: str, claims: dict[str, Any], role: str
) -> None:
    auth_env(jwt_role_claim=claim_name)
    assert auth_env.verify(rs_token(claims, rsa_key)).role == role


@pytest.mark.parametrize(
    ("claims", "kid", "reason"),
    [
        # a kid that is not in the key set
        (ext_claims(), "unknown-kid", "unknown key"),
        # no kid at all
        (ext_claims(), "", "unknown key"),
        # issuer other than external_issuer
        (ext_claims(iss="https://evil.example"), None, "wrong issuer"),
        # audience other than external_audience
        (ext_claims(aud="other-app"), None, "wrong audience"),
        # expired
        (ext_claims(exp=int(time.time()) - 3600), None, "expired token"),
        # role claim absent
        (ext_claims(realm_access=None), None, "missing claim: realm_access.roles"),
        # role claim holds a string that is no product role
        (ext_claims(realm_access={"roles": "superuser"}), None, "unknown role"),
        # no subject
        (ext_claims(sub=None), None, "missing claim: sub"),
    ],
)
def test_bad_rs256_tokens_are_refused(
    jwks_file, auth_env, rsa_key: RSAKey, claims: dict[str, Any], kid: str | None, reason: str
) -> None:
    with pytest.raises(AuthError) as caught:
        auth_env.verify(rs_token(claims, rsa_key, kid=kid))
    assert caught.value.message == reason


def test_rs256_token_signed_by_a_foreign_key_with_a_known_kid_is_refused(
    jwks_file, auth_env, rsa_key: RSAKey, other_rsa_key: RSAKey
) -> None:
    with pytest.raises(AuthError, match="bad signature"):
        auth_env.verify(rs_token(ext_claims(), other_rsa_key, kid=rsa_key.kid))


def _hs256_signed_with(secret: bytes, claims: dict[str, Any], kid: str) -> str:
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT", "kid": kid}).encode())
    payload = b64url(json.dumps(claims).encode())
    signature = hmac.new(secret, f"{header}.{payload}".encode(), hashlib.sha256).digest()
    return f"{header}.{payload}.{b64url(signature)}"


@pytest.mark.parametrize(
    "secret_form",
    [
        # the public key as PEM text: the classic HS/RS confusion attack
        "pem",
        # the public JWK JSON as published in the key set
        "jwk-json",
    ],
)
def test_hs256_token_keyed_with_the_public_key_is_refused(
    jwks_file, auth_env, rsa_key: RSAKey, secret_form: str
) -> None:
    public = RSAKey.import_key(rsa_key.as_dict(private=False))
    secret = (
        public.as_pem(private=False)
        if secret_form == "pem"
        else json.dumps(public.as_dict()).encode()
    )
    for claims in (ext_claims(), local_claims(role="admin")):
        with pytest.raises(AuthError, match="bad signature"):
            auth_env.verify(_hs256_signed_with(secret, claims, rsa_key.kid))


def test_rs256_is_refused_when_no_external_idp_is_configured(auth_env, rsa_key) -> None:
    with pytest.raises(AuthError, match="algorithm not allowed"):
        auth_env.verify(rs_token(ext_claims(), rsa_key))


def test_unreadable_jwks_file_refuses_with_key_set_unavailable(
    auth_env, tmp_path: Path, rsa_key: RSAKey
) -> None:
    auth_env(jwks_file=tmp_path / "missing.json")
    with pytest.raises(AuthError, match="key set unavailable"):
        auth_env.verify(rs_token(ext_claims(), rsa_key))


def test_rotated_jwks_file_is_reread(jwks_file: Path, auth_env, rsa_key, other_rsa_key) -> None:
    assert auth_env.verify(rs_token(ext_claims(), rsa_key)).subject == "carol"
    jwks_file.write_text(json.dumps(jwks_document(rsa_key, other_rsa_key)) + " ")
    assert auth_env.verify(rs_token(ext_claims(sub="dave"), other_rsa_key)).subject == "dave"


# --- JWKS over HTTP (a real httpx fetch from a loopback server) ----------------------


class _JwksServer:
    def __init__(self) -> None:
        self.document: dict[str, Any] = {"keys": []}
        self.hits = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.hits += 1
                body = json.dumps(owner.document).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                return  # keep test output clean

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/certs"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def jwks_server(auth_env) -> Iterator[_JwksServer]:
    server = _JwksServer()
    auth_env(
        jwks_url=server.url,
        external_issuer=EXT_ISS,
        external_audience=EXT_AUD,
        jwt_role_claim="realm_access.roles",
    )
    yield server
    server.close()


def test_jwks_url_is_fetched_once_and_cached(jwks_server: _JwksServer, auth_env, rsa_key) -> None:
    jwks_server.document = jwks_document(rsa_key)
    for _ in range(3):
        assert auth_env.verify(rs_token(ext_claims(), rsa_key)).role == "admin"
    assert jwks_server.hits == 1


def test_unknown_kid_right_after_a_fetch_is_refused_without_hammering_the_idp(
    jwks_server: _JwksServer, auth_env, rsa_key, other_rsa_key
) -> None:
    jwks_server.document = jwks_document(rsa_key)
    auth_env.verify(rs_token(ext_claims(), rsa_key))
    with pytest.raises(AuthError, match="unknown key"):
        auth_env.verify(rs_token(ext_claims(), other_rsa_key))
    # a refetch happens at most once per MIN_REFETCH_S, so the cached set answered
    assert jwks_server.hits == 1
