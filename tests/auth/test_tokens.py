"""Local HS256 tokens: issue/verify round trip and every refusal reason."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from joserfc import jwt
from joserfc.jwk import OctKey

from app.errors import AuthError
from tests.auth.conftest import (
    AUDIENCE,
    SECRET,
    b64url,
    hs_token,
    local_claims,
    unsigned_token,
)
from tests.support import principal_for


@pytest.mark.parametrize("role", ["admin", "analyst"])
def test_issued_token_verifies_to_the_same_principal(auth_env, role: str) -> None:
    alice = principal_for(auth_env.parts, "alice", role)  # with the account's token stamp
    token, expires_in = auth_env.issue(username="alice", role=role)
    assert expires_in == 8 * 3600
    assert alice.stamp and auth_env.verify(token) == alice


def test_issued_token_carries_the_configured_claims(auth_env) -> None:
    auth_env(jwt_issuer="iss-x", jwt_audience="aud-y", jwt_ttl_s=120)
    token, expires_in = auth_env.issue(username="bob", role="admin")
    claims = jwt.decode(token, OctKey.import_key(SECRET), algorithms=["HS256"]).claims
    assert expires_in == 120
    assert {claims["sub"], claims["role"], claims["iss"], claims["aud"]} == {
        "bob",
        "admin",
        "iss-x",
        "aud-y",
    }
    assert claims["exp"] - claims["iat"] == 120


def test_explicit_ttl_overrides_the_setting(auth_env) -> None:
    token, expires_in = auth_env.issue(username="bob", role="admin", ttl_s=30)
    claims = jwt.decode(token, OctKey.import_key(SECRET), algorithms=["HS256"]).claims
    assert expires_in == 30 and claims["exp"] - claims["iat"] == 30


def test_issuing_for_an_unknown_role_is_refused(auth_env) -> None:
    with pytest.raises(AuthError, match="unknown role"):
        auth_env.issue(username="bob", role="superuser")


def _tamper_payload(token: str) -> str:
    header, _, signature = token.split(".")
    forged = b64url(
        b'{"sub":"alice","role":"admin","iss":"ss-tools","aud":"ss-tools-agent","exp":9999999999}'
    )
    return f"{header}.{forged}.{signature}"


def _tamper_signature(token: str) -> str:
    header, payload, signature = token.split(".")
    middle = len(signature) // 2
    flipped = "A" if signature[middle] != "A" else "B"
    return f"{header}.{payload}.{signature[:middle]}{flipped}{signature[middle + 1 :]}"


def _valid() -> str:
    return hs_token(local_claims())


NOW = int(time.time())

REFUSALS: list[tuple[Callable[[], str | None], str]] = [
    # no token at all
    (lambda: None, "missing token"),
    # an empty / blank token
    (lambda: "   ", "missing token"),
    # not three dot-separated parts
    (lambda: "abc.def", "malformed token"),
    # header that is not base64 JSON
    (lambda: "!!!.e30.sig", "malformed token"),
    # header without alg
    (lambda: b64url(b'{"typ":"JWT"}') + ".e30.sig", "malformed token"),
    # expired an hour ago
    (lambda: hs_token(local_claims(iat=NOW - 7200, exp=NOW - 3600)), "expired token"),
    # payload swapped for an admin one, signature kept
    (lambda: _tamper_payload(_valid()), "bad signature"),
    # one signature character changed
    (lambda: _tamper_signature(_valid()), "bad signature"),
    # signed with another secret
    (lambda: hs_token(local_claims(), secret="another-secret-" + "y" * 40), "bad signature"),
    # alg none: unsigned token
    (lambda: unsigned_token(local_claims(role="admin")), "algorithm not allowed"),
    # HS384 while only HS256 is allowed
    (lambda: hs_token(local_claims(), alg="HS384"), "algorithm not allowed"),
    # wrong audience
    (lambda: hs_token(local_claims(aud="someone-else")), "wrong audience"),
    # wrong issuer
    (lambda: hs_token(local_claims(iss="evil-idp")), "wrong issuer"),
    # no subject
    (lambda: hs_token(local_claims(sub=None)), "missing claim: sub"),
    # no role
    (lambda: hs_token(local_claims(role=None)), "missing claim: role"),
    # no expiry: tokens must expire
    (lambda: hs_token(local_claims(exp=None)), "missing claim: exp"),
    # no audience at all
    (lambda: hs_token(local_claims(aud=None)), "missing claim: aud"),
    # a role this product does not know
    (lambda: hs_token(local_claims(role="superuser")), "unknown role"),
    # not valid yet (nbf an hour ahead)
    (lambda: hs_token(local_claims(nbf=NOW + 3600)), "token not yet valid"),
    # issued an hour in the future
    (lambda: hs_token(local_claims(iat=NOW + 3600)), "token not yet valid"),
    # nbf that is not a NumericDate
    (lambda: hs_token(local_claims(nbf="soon")), "invalid claim: nbf"),
    # exp that is not a NumericDate (would otherwise never expire)
    (lambda: hs_token(local_claims(exp="never")), "invalid claim: exp"),
    # subject of the wrong type
    (lambda: hs_token(local_claims(sub=42)), "invalid claim: sub"),
    # RS256 while no external IdP is configured
    (lambda: b64url(b'{"alg":"RS256","kid":"k"}') + ".e30.c2ln", "algorithm not allowed"),
    # an absurdly long token is refused before parsing
    (lambda: "a" * 20_000, "malformed token"),
]


@pytest.mark.parametrize(
    ("make", "reason"), REFUSALS, ids=[f"{i:02d}-{r}" for i, (_, r) in enumerate(REFUSALS)]
)
def test_verify_token_refuses_with_a_stable_reason(auth_env, make, reason: str) -> None:
    with pytest.raises(AuthError) as caught:
        auth_env.verify(make())
    assert caught.value.message == reason
    assert caught.value.status_code == 401


def test_token_within_clock_leeway_is_still_accepted(auth_env) -> None:
    token = hs_token(local_claims(exp=int(time.time()) - 2))
    assert auth_env.decode(token).user_id == "alice"


def test_audience_list_containing_ours_is_accepted(auth_env) -> None:
    token = hs_token(local_claims(aud=["other", AUDIENCE]))
    assert auth_env.decode(token).role == "analyst"


def test_changing_the_secret_invalidates_issued_tokens(auth_env) -> None:
    token, _ = auth_env.issue(username="alice", role="admin")
    auth_env(jwt_secret="rotated-secret-" + "z" * 40)
    with pytest.raises(AuthError, match="bad signature"):
        auth_env.verify(token)


_SEGMENT = st.text(
    alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=+/!", max_size=60
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    token=st.one_of(
        st.text(max_size=200),
        st.builds(lambda a, b, c: f"{a}.{b}.{c}", _SEGMENT, _SEGMENT, _SEGMENT),
        st.builds(
            lambda header, body: f"{b64url(header.encode())}.{b64url(body.encode())}.c2ln",
            st.sampled_from(
                [
                    '{"alg":"HS256"}',
                    '{"alg":"RS256"}',
                    '{"alg":"none"}',
                    "[]",
                    '{"alg":1}',
                    "null",
                    '{"alg":"HS256","crit":["x"]}',
                ]
            ),
            st.text(max_size=40),
        ),
    )
)
def test_arbitrary_input_only_ever_raises_auth_error(auth_env, token: str) -> None:
    with pytest.raises(AuthError):
        auth_env.verify(token)
