"""JwksCache: TTL, refetch on unknown kid, failure handling (injected fetch and clock)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from joserfc.jwk import RSAKey

from app.auth.jwks import JwksCache
from app.errors import AuthError
from tests.auth.conftest import jwks_document


class FakeIdp:
    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.calls = 0
        self.fail = False
        self.now = 1000.0

    def fetch(self, url: str) -> dict[str, Any]:
        self.calls += 1
        if self.fail:
            raise httpx.ConnectError("idp down")
        return self.document

    def clock(self) -> float:
        return self.now


@pytest.fixture
def idp(rsa_key: RSAKey) -> FakeIdp:
    return FakeIdp(jwks_document(rsa_key))


def _cache(idp: FakeIdp) -> JwksCache:
    return JwksCache(url="https://idp.example/certs", fetch=idp.fetch, clock=idp.clock)


def test_key_set_is_fetched_again_after_the_ttl(idp: FakeIdp, rsa_key: RSAKey) -> None:
    cache = _cache(idp)
    cache.key_for(rsa_key.kid)
    idp.now += 599
    cache.key_for(rsa_key.kid)
    assert idp.calls == 1
    idp.now += 2  # past 600 s
    cache.key_for(rsa_key.kid)
    assert idp.calls == 2


def test_rotated_key_is_found_by_one_refetch_on_unknown_kid(
    idp: FakeIdp, rsa_key: RSAKey, other_rsa_key: RSAKey
) -> None:
    cache = _cache(idp)
    cache.key_for(rsa_key.kid)
    idp.document = jwks_document(rsa_key, other_rsa_key)  # the IdP rotates
    idp.now += 30
    assert cache.key_for(other_rsa_key.kid).kid == other_rsa_key.kid
    assert idp.calls == 2


def test_unknown_kid_costs_at_most_one_fetch_per_interval(idp: FakeIdp, rsa_key) -> None:
    cache = _cache(idp)
    cache.key_for(rsa_key.kid)
    idp.now += 11
    for _ in range(5):
        with pytest.raises(AuthError, match="unknown key"):
            cache.key_for("forged-kid")
    assert idp.calls == 2  # the first unknown kid refetched; the next four did not


def test_failed_refresh_keeps_serving_the_previous_keys(idp: FakeIdp, rsa_key) -> None:
    cache = _cache(idp)
    cache.key_for(rsa_key.kid)
    idp.fail = True
    idp.now += 700
    assert cache.key_for(rsa_key.kid).kid == rsa_key.kid
    assert idp.calls == 2


def test_failed_first_fetch_refuses_with_key_set_unavailable(idp: FakeIdp, rsa_key) -> None:
    idp.fail = True
    with pytest.raises(AuthError, match="key set unavailable"):
        _cache(idp).key_for(rsa_key.kid)


@pytest.mark.parametrize(
    ("document", "usable_kids"),
    [
        # not a key set at all
        ({"nope": 1}, None),
        # keys without kid, of another type, or for encryption are ignored
        (
            {
                "keys": [
                    {"kty": "oct", "k": "c2VjcmV0", "kid": "o"},
                    {"kty": "RSA", "n": "AQAB", "e": "AQAB"},
                ]
            },
            set(),
        ),
        # a broken RSA key is skipped, not fatal
        ({"keys": [{"kty": "RSA", "kid": "bad", "n": "!!", "e": "AQAB"}]}, set()),
    ],
)
def test_odd_key_sets_are_handled(idp: FakeIdp, document, usable_kids) -> None:
    idp.document = document
    cache = _cache(idp)
    with pytest.raises(AuthError) as caught:
        cache.key_for("bad")
    expected = "key set unavailable" if usable_kids is None else "unknown key"
    assert caught.value.message == expected


def test_encryption_keys_are_not_used_for_signatures(idp: FakeIdp, rsa_key: RSAKey) -> None:
    enc = dict(rsa_key.as_dict(private=False), use="enc")
    idp.document = {"keys": [enc]}
    with pytest.raises(AuthError, match="unknown key"):
        _cache(idp).key_for(rsa_key.kid)
