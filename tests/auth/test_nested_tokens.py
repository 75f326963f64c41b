"""A token nested past the JSON decoder's depth, or with a header value of the wrong shape,
is a clean 401 before sign-in, never a 500 (a deeply nested JWT header used to raise
``RecursionError`` out of the header's parse, and a list as ``kid`` a ``TypeError``).

Every path a token enters: the gate itself (local and with the external IdP's key set),
the API bearer, the MCP door, the audit CSV (a page route taking a bearer), and the
external key set's own document (file and URL)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from joserfc import jws
from joserfc.jwk import RSAKey
from nicegui.testing import User

from app.auth.jwks import JwksCache
from app.errors import AuthError
from tests.auth.conftest import b64url, jwks_document

DEPTH = 5_000  # past the JSON decoder's recursion limit, within the 16 KiB token cap
SHALLOW = 500  # parses, but is no string where one is needed


def deep(n: int = DEPTH) -> bytes:
    return b"[" * n + b"]" * n


def unsigned(header: bytes, payload: bytes = b'{"sub":"a"}') -> str:
    return f"{b64url(header)}.{b64url(payload)}.c2ln"


def signed(key: RSAKey, payload: bytes) -> str:
    """An RS256 token the IdP really signed, whatever its claims hold."""
    return jws.serialize_compact({"alg": "RS256", "kid": key.kid}, payload, key, ["RS256"])


HEADERS = [
    pytest.param(deep(), "malformed token", id="header-nested-array"),
    pytest.param(b'{"alg":"HS256","x":' + deep() + b"}", "malformed token", id="value-nested"),
    pytest.param(b'{"alg":"RS256","kid":' + deep() + b"}", "malformed token", id="kid-nested"),
    pytest.param(
        b'{"alg":"RS256","kid":' + deep(SHALLOW) + b"}", "unknown key", id="kid-shallow-list"
    ),
    pytest.param(b'{"alg":"RS256","kid":["idp-1"]}', "unknown key", id="kid-list"),
    pytest.param(b'{"alg":"RS256","kid":{"a":1}}', "unknown key", id="kid-object"),
    pytest.param(b'{"alg":"HS256","crit":[["x"]]}', "malformed token", id="crit-list-of-lists"),
    pytest.param(
        b'{"alg":"RS256","kid":"idp-1","crit":[{"a":1}]}', "malformed token", id="crit-objects"
    ),
]


@pytest.fixture
def external(tmp_path: Path, rsa_key: RSAKey, auth_env: Any) -> Any:
    """The gate with the external IdP's key set (a JWKS file holding ``rsa_key``)."""
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(jwks_document(rsa_key)))
    auth_env(jwks_file=path)
    return auth_env


@pytest.mark.parametrize(("header", "reason"), HEADERS)
def test_a_nested_or_misshapen_header_is_a_401_with_a_stable_reason(
    external: Any, header: bytes, reason: str
) -> None:
    token = unsigned(header)
    assert len(token) < 16_384  # within the token cap: the parser meets it
    with pytest.raises(AuthError) as caught:
        external.verify(token)
    assert caught.value.message == reason and caught.value.status_code == 401


def test_a_signed_token_with_claims_nested_too_deeply_is_malformed(
    external: Any, rsa_key: RSAKey
) -> None:
    token = signed(rsa_key, b'{"sub":"a","exp":9999999999,"x":' + deep() + b"}")
    with pytest.raises(AuthError, match="malformed token"):
        external.verify(token)


def test_without_an_external_idp_a_nested_header_is_malformed_too(auth_env: Any) -> None:
    with pytest.raises(AuthError, match="malformed token"):
        auth_env.verify(unsigned(deep()))


def test_a_nested_key_set_file_is_unavailable_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "jwks.json"
    path.write_bytes(b'{"keys":' + deep() + b"}")
    with pytest.raises(AuthError, match="key set unavailable"):
        JwksCache(file=path).key_for("idp-1")


def test_a_nested_key_set_from_the_url_is_unavailable_not_a_crash() -> None:
    def fetch(url: str) -> Any:
        return json.loads(b'{"keys":' + deep() + b"}")  # what httpx's response.json() does

    with pytest.raises(AuthError, match="key set unavailable"):
        JwksCache(url="https://idp.example/jwks", fetch=fetch).key_for("idp-1")


def test_a_key_set_entry_whose_kid_is_not_a_string_is_skipped(rsa_key: RSAKey) -> None:
    entry = {**rsa_key.as_dict(private=False), "kid": json.loads(deep(SHALLOW))}
    cache = JwksCache(url="https://idp.example/jwks", fetch=lambda url: {"keys": [entry]})
    with pytest.raises(AuthError, match="unknown key"):
        cache.key_for("idp-1")


NESTED = unsigned(b'{"alg":"HS256","x":' + deep() + b"}")


@pytest.mark.parametrize(
    ("method", "path", "status", "body"),
    [
        ("GET", "/api/agent/tools", 401, {"error": "unauthorized", "reason": "malformed token"}),
        ("POST", "/mcp", 401, {"error": "unauthorized", "reason": "malformed token"}),
        ("GET", "/api/audit.csv", 403, None),  # a page route: a bad token is no admin
    ],
)
async def test_every_door_answers_a_nested_header_cleanly(
    user: User, method: str, path: str, status: int, body: dict[str, str] | None
) -> None:
    headers = {"Authorization": f"Bearer {NESTED}"}
    payload = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    r = await user.http_client.request(
        method, path, headers=headers, json=payload if method == "POST" else None
    )
    assert r.status_code == status, r.text
    if body is not None:
        assert r.json() == body


@pytest.fixture
def idp_key_set(tmp_path: Path, rsa_key: RSAKey, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The external IdP's key set, named in the environment before the app starts."""
    path = tmp_path / "idp-jwks.json"
    path.write_text(json.dumps(jwks_document(rsa_key)))
    monkeypatch.setenv("SS_TOOLS_JWKS_FILE", str(path))
    return path


@pytest.mark.parametrize(
    "token",
    [
        unsigned(b'{"alg":"RS256","kid":' + deep() + b"}"),
        unsigned(b'{"alg":"RS256","kid":["idp-1"]}'),
    ],
    ids=["kid-nested", "kid-list"],
)
async def test_the_external_path_answers_cleanly_over_http(
    idp_key_set: Path, user: User, token: str
) -> None:
    r = await user.http_client.get("/api/agent/tools", headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 401 and r.json()["error"] == "unauthorized", r.text
