"""An IdP token's identity is namespaced by its issuer, never a local account's bare name
(an analyst-role IdP token with ``sub: "ada"`` used to act as the local admin ada)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from joserfc.jwk import RSAKey

from app.auth.external_ids import external_user_id
from app.errors import AuthError
from app.store import users
from tests.auth.conftest import claims_of, jwks_document, rs_token
from tests.support import ensure_user

ISS = "https://idp.example/realms/ops"


def idp_claims(**overrides: Any) -> dict[str, Any]:
    """An analyst-role IdP token for ``ada`` (the name of a local admin in these tests)."""
    return claims_of({"sub": "ada", "iss": ISS, "role": "analyst"}, **overrides)


@pytest.fixture
def idp(tmp_path: Path, rsa_key: RSAKey, auth_env: Any) -> Any:
    """The auth gate accepting the IdP's tokens (its issuer not pinned: each token's own)."""
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps(jwks_document(rsa_key)))
    auth_env(jwks_file=path, jwt_role_claim="role")
    return auth_env


@pytest.mark.parametrize(
    ("claims", "user_id"),
    [
        # the subject namespaced by its issuer: never the local account "ada"
        (idp_claims(), f"{ISS}#ada"),
        # a token naming no issuer gets the fixed namespace, still never a bare name
        (idp_claims(iss=None), "external#ada"),
        # a '#' in the issuer is escaped: issuer "a#b" + subject "c" ...
        (idp_claims(iss="a#b", sub="c"), "a%23b#c"),
        # ... is not issuer "a" + subject "b#c"
        (idp_claims(iss="a", sub="b#c"), "a#b#c"),
        # and an escape already in the issuer stays apart from an escaped '#'
        (idp_claims(iss="a%23b", sub="c"), "a%2523b#c"),
    ],
)
def test_an_idp_identity_is_its_issuer_and_subject(
    idp: Any, rsa_key: RSAKey, claims: dict[str, Any], user_id: str
) -> None:
    principal = idp.verify(rs_token(claims, rsa_key))
    assert principal.user_id == user_id
    assert principal.source == "external" and principal.subject == claims["sub"]
    assert principal.issuer == claims.get("iss", "external")


def test_the_same_subject_of_two_issuers_is_two_users(idp: Any, rsa_key: RSAKey) -> None:
    one = idp.verify(rs_token(idp_claims(), rsa_key))
    other = idp.verify(rs_token(idp_claims(iss="https://other.example"), rsa_key))
    assert one.user_id != other.user_id and one.subject == other.subject == "ada"


@pytest.mark.parametrize(
    ("claims", "reason"),
    [
        # a subject that is no string cannot name anyone
        (idp_claims(sub=42), "invalid claim: sub"),
        # a newline in the subject would forge lines of the logs and audit rows
        (idp_claims(sub="ada\nrole=admin"), "invalid claim: sub"),
        # a subject beyond 256 characters is refused, not stored
        (idp_claims(sub="a" * 257), "invalid claim: sub"),
        # an issuer that is no string (the issuer is not pinned here): the JWT library's
        (idp_claims(iss=["x"]), "wrong issuer"),
        # an issuer with a control character is no namespace
        (idp_claims(iss="https://idp.example\u001b[2J"), "invalid claim: iss"),
    ],
)
def test_an_identity_claim_unfit_for_a_user_id_is_refused(
    idp: Any, rsa_key: RSAKey, claims: dict[str, Any], reason: str
) -> None:
    with pytest.raises(AuthError) as caught:
        idp.verify(rs_token(claims, rsa_key))
    assert caught.value.message == reason


def test_a_disabled_local_account_of_the_same_name_does_not_touch_the_idp_user(
    idp: Any, rsa_key: RSAKey
) -> None:
    ensure_user(idp.parts, "ada", "admin", disabled=True)
    principal = idp.verify(rs_token(idp_claims(), rsa_key))
    assert principal.user_id == f"{ISS}#ada" and principal.role == "analyst"


def test_an_explicit_map_names_the_ss_tools_user_and_its_account_can_disable_it(
    idp: Any, rsa_key: RSAKey
) -> None:
    idp(external_user_map={f"{ISS}#ada": "ada"})
    token = rs_token(idp_claims(), rsa_key)
    principal = idp.verify(token)
    assert (principal.user_id, principal.subject, principal.role) == ("ada", "ada", "analyst")
    ensure_user(idp.parts, "ada", "admin", disabled=True)
    with pytest.raises(AuthError, match="user disabled"):
        idp.verify(token)


def test_a_local_username_cannot_look_like_an_idp_identity(idp: Any) -> None:
    with idp.parts.db.session() as session, pytest.raises(ValueError, match="'#'"):
        users.create_user(
            session, username=external_user_id(ISS, "ada"), role="admin", password_hash="!"
        )
