"""JWT issue and verification (joserfc, never ``authlib.jose``).

Local tokens are HS256, signed with ``settings.jwt_secret`` and carrying ``sub``, ``role``,
``iss``, ``aud``, ``iat``, ``exp``, ``jti`` and ``stp`` (the user's token stamp: a change
of credentials gives the user a new one, which ends the tokens from before). When ``jwks_url`` or
``jwks_file`` is set, RS256 tokens of an external identity provider are accepted too:
the key is chosen by the token's ``kid`` among the RSA keys of the key set, issuer and
audience are checked against ``external_issuer`` / ``external_audience`` when those are
set, and the role is read from the claim named by ``jwt_role_claim`` (a dotted path such
as ``realm_access.roles``; a list maps to ``admin`` when it holds "admin", else
``analyst``).

An IdP token's subject is never taken for a local account of the same name: its user is
the identity namespaced by its issuer, ``<issuer>#<subject>`` (:func:`external_user_id`;
no local username holds a ``#``), unless ``external_user_map`` maps that identity to an
ss-tools user name explicitly. What the caller owns (conversations, confirmations, audit
rows, runs) is keyed by that ``Principal.user_id``; ``issuer`` and ``subject`` keep the
token's own claims.

The route is chosen from the header's ``alg`` *before* any key is touched, and each
route passes exactly one algorithm to ``jwt.decode``: an RS256 token never meets the HMAC
secret and an HS256 token never meets an RSA public key (no algorithm confusion).
``jwt.decode`` checks only the signature; claims are checked by ``JWTClaimsRegistry``.

Every refusal is an :class:`app.errors.AuthError` whose message is a short stable reason:
``missing token``, ``malformed token``, ``expired token``, ``bad signature``,
``algorithm not allowed``, ``wrong audience``, ``wrong issuer``, ``missing claim: X``,
``invalid claim: X``, ``token not yet valid``, ``unknown role``, ``unknown key``,
``key set unavailable``. :meth:`app.auth.gate.AuthGate.verify` adds the revocation check
(``unknown user``, ``user disabled``, ``role changed``, ``credentials changed``).

These functions are pure: they take the settings (and the external key set) they use.
"""

from __future__ import annotations

import base64
import binascii
import json
import secrets
import time
from dataclasses import dataclass
from typing import Any, Literal

from joserfc import jwt
from joserfc.errors import (
    BadSignatureError,
    ExpiredTokenError,
    InvalidClaimError,
    JoseError,
    MissingClaimError,
    UnsupportedAlgorithmError,
)
from joserfc.jwk import OctKey, RSAKey

from app.auth.external_ids import external_user_id, identity_claims
from app.auth.jwks import JwksCache
from app.errors import AuthError
from app.settings import Settings

ROLES: tuple[str, ...] = ("admin", "analyst")
LOCAL_ALG = "HS256"
EXTERNAL_ALG = "RS256"
LEEWAY_S = 10
MAX_TOKEN_CHARS = 16_384
STAMP_CLAIM = "stp"


@dataclass(frozen=True, slots=True)
class Principal:
    """Who is calling. ``user_id`` owns what the caller does (conversations,
    confirmations, audit rows, runs): a local account's username, or for an IdP token its
    namespaced identity (:func:`external_user_id`) or the ss-tools user it is mapped to
    (``external_user_map``). ``issuer`` / ``subject``: an IdP token's own ``iss`` and
    ``sub`` (None for a local token)."""

    user_id: str
    role: str
    source: Literal["local", "external"] = "local"
    # the user's token stamp when the token or page session was issued (a newer one ends it)
    stamp: str | None = None
    issuer: str | None = None
    subject: str | None = None

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"

    def audit_row(self, **fields: Any) -> dict[str, Any]:
        """An audit row's fields naming this caller (``user``, ``role``), with ``fields``
        (the conversation, the door, ...)."""
        return {"user": self.user_id, "role": self.role, **fields}


def _local_key(settings: Settings) -> OctKey:
    return OctKey.import_key(settings.jwt_secret.get_secret_value())


def issue_token(
    settings: Settings,
    *,
    username: str,
    role: str,
    ttl_s: int | None = None,
    stamp: str | None = None,
) -> tuple[str, int]:
    """A signed HS256 token for ``username`` and its ``expires_in`` in seconds; ``stamp``
    (the user's token stamp, claim ``stp``) ties it to the user's current credentials."""
    if role not in ROLES:
        raise AuthError("unknown role")
    if not username:
        raise AuthError("missing claim: sub")
    ttl = settings.jwt_ttl_s if ttl_s is None else int(ttl_s)
    if ttl <= 0:
        raise ValueError("ttl_s must be positive")
    now = int(time.time())
    claims = {
        "sub": username,
        "role": role,
        "iss": settings.jwt_issuer,
        "aud": settings.jwt_audience,
        "iat": now,
        "exp": now + ttl,
        "jti": secrets.token_urlsafe(12),
    }
    if stamp is not None:
        claims[STAMP_CLAIM] = stamp
    token = jwt.encode(
        {"alg": LOCAL_ALG, "typ": "JWT"}, claims, _local_key(settings), algorithms=[LOCAL_ALG]
    )
    return token, ttl


def _header(token: str) -> dict[str, Any]:
    """The token's JOSE header, read before any key is touched. Anything that is not a
    flat enough JSON object naming an ``alg`` is a malformed token (a 401), including a
    header nested past the JSON decoder's depth (``RecursionError``), which must never
    become a 500 before sign-in."""
    parts = token.split(".")
    if len(parts) != 3 or not all(parts[:2]):
        raise AuthError("malformed token")
    segment = parts[0]
    try:
        raw = base64.urlsafe_b64decode(segment + "=" * (-len(segment) % 4))
        header = json.loads(raw)
    except (binascii.Error, ValueError, RecursionError) as exc:
        raise AuthError("malformed token") from exc
    if not isinstance(header, dict) or not isinstance(header.get("alg"), str):
        raise AuthError("malformed token")
    return header


def _reason(exc: JoseError) -> str:
    if isinstance(exc, ExpiredTokenError):
        return "expired token"
    if isinstance(exc, MissingClaimError):
        return f"missing claim: {sorted(exc.claim.split(','))[0]}"
    if isinstance(exc, InvalidClaimError):
        if exc.claim in ("nbf", "iat") and "NumericDate" not in str(exc.description):
            return "token not yet valid"  # nbf ahead of now, or issued in the future
        return {"aud": "wrong audience", "iss": "wrong issuer"}.get(
            exc.claim, f"invalid claim: {exc.claim}"
        )
    if isinstance(exc, BadSignatureError):
        return "bad signature"
    if isinstance(exc, UnsupportedAlgorithmError):
        return "algorithm not allowed"
    return "malformed token"


def _require(claims: dict[str, Any], names: tuple[str, ...]) -> None:
    for name in names:
        if claims.get(name) in (None, ""):
            raise AuthError(f"missing claim: {name}")


def _decode(
    token: str,
    key: OctKey | RSAKey,
    alg: str,
    registry: jwt.JWTClaimsRegistry,
    essential: tuple[str, ...],
) -> dict[str, Any]:
    try:
        decoded = jwt.decode(token, key, algorithms=[alg])
        claims = dict(decoded.claims)
        _require(claims, essential)
        registry.validate(claims)
    except JoseError as exc:
        raise AuthError(_reason(exc)) from exc
    except (ValueError, TypeError, RecursionError) as exc:  # a claim set joserfc cannot read
        raise AuthError("malformed token") from exc
    return claims


def _verify_local(token: str, settings: Settings) -> tuple[Principal, float]:
    registry = jwt.JWTClaimsRegistry(
        leeway=LEEWAY_S,
        iss={"essential": True, "value": settings.jwt_issuer},
        aud={"essential": True, "value": settings.jwt_audience},
        exp={"essential": True},
        sub={"essential": True},
    )
    claims = _decode(
        token, _local_key(settings), LOCAL_ALG, registry, ("sub", "role", "exp", "iss", "aud")
    )
    role = claims["role"]
    if role not in ROLES:
        raise AuthError("unknown role")
    stamp = claims.get(STAMP_CLAIM)
    principal = Principal(
        user_id=claims["sub"], role=role, stamp=stamp if isinstance(stamp, str) and stamp else None
    )
    return principal, float(claims["exp"])


def _claim_path(claims: dict[str, Any], path: str) -> Any:
    value: Any = claims
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return value


def external_role(claims: dict[str, Any], claim_path: str) -> str:
    """The product role from an IdP claim: a list maps to admin if it holds "admin",
    else analyst; a string must be a known role."""
    value = _claim_path(claims, claim_path)
    if value is None or value == "" or value == []:
        raise AuthError(f"missing claim: {claim_path}")
    if isinstance(value, list):
        return "admin" if "admin" in value else "analyst"
    if isinstance(value, str) and value in ROLES:
        return value
    raise AuthError("unknown role")


def _verify_external(
    token: str, header: dict[str, Any], settings: Settings, jwks: JwksCache
) -> tuple[Principal, float]:
    kid = header.get("kid")
    if not isinstance(kid, str):  # a list or object is no key id (and no dict key)
        raise AuthError("unknown key")
    key = jwks.key_for(kid)
    options: dict[str, Any] = {"exp": {"essential": True}, "sub": {"essential": True}}
    if settings.external_issuer:
        options["iss"] = {"essential": True, "value": settings.external_issuer}
    if settings.external_audience:
        options["aud"] = {"essential": True, "value": settings.external_audience}
    registry = jwt.JWTClaimsRegistry(leeway=LEEWAY_S, **options)
    claims = _decode(token, key, EXTERNAL_ALG, registry, ("sub", "exp"))
    role = external_role(claims, settings.jwt_role_claim)
    issuer, subject = identity_claims(claims)
    namespaced = external_user_id(issuer, subject)
    principal = Principal(
        user_id=settings.external_user_map.get(namespaced, namespaced),
        role=role,
        source="external",
        issuer=issuer,
        subject=subject,
    )
    return principal, float(claims["exp"])


def external_enabled(settings: Settings) -> bool:
    return bool(settings.jwks_url or settings.jwks_file)


def external_keys(settings: Settings) -> JwksCache | None:
    """The external identity provider's key set the settings name, or None."""
    if not external_enabled(settings):
        return None
    return JwksCache(url=settings.jwks_url, file=settings.jwks_file)


def decode_with_expiry(
    token: str | None, settings: Settings, jwks: JwksCache | None = None
) -> tuple[Principal, float]:
    """``(principal, exp)``: the principal a token was issued to, from its signature and
    claims alone (no database; ``jwks``, the external key set, may fetch its URL), and
    when it expires (epoch seconds); raises ``AuthError(reason)`` for any defect."""
    if token is None or not token.strip():
        raise AuthError("missing token")
    token = token.strip()
    if len(token) > MAX_TOKEN_CHARS:
        raise AuthError("malformed token")
    header = _header(token)
    alg = header["alg"]
    if alg == LOCAL_ALG:
        return _verify_local(token, settings)
    if alg == EXTERNAL_ALG and jwks is not None:
        return _verify_external(token, header, settings, jwks)
    raise AuthError("algorithm not allowed")


def decode_token(token: str | None, settings: Settings, jwks: JwksCache | None = None) -> Principal:
    """The principal of :func:`decode_with_expiry`. Requests must use
    :meth:`app.auth.gate.AuthGate.verify`, which also checks the user is still active."""
    return decode_with_expiry(token, settings, jwks)[0]
