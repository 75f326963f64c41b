"""The user id of an identity from an external identity provider (an IdP token).

An IdP's ``sub`` is unique only within that IdP, and it is not a local account: taking it
as a username let an analyst-role IdP token with ``sub: "ada"`` act as the local admin ada
(read her conversations, cancel her confirmations). So an IdP identity is namespaced by
its issuer: ``<issuer>#<subject>`` (:func:`external_user_id`). A local username never
holds a ``#`` (``app.cli.USERNAME_RE``; ``app.store.users.create_user`` refuses one), so
the two can never meet by name; an operator who wants an IdP identity to act as a given
ss-tools user says so in ``external_user_map`` (``app.auth.tokens``).
"""

from __future__ import annotations

from typing import Any

from app.errors import AuthError

#: What separates an IdP identity's issuer from its subject in its user id.
EXTERNAL_SEPARATOR = "#"
#: The issuer of an IdP token that names none (only when ``external_issuer`` is unset:
#: every such token comes from the one configured key set).
UNNAMED_ISSUER = "external"
MAX_CLAIM_CHARS = 256  # an IdP token's ``iss`` and ``sub``


def external_user_id(issuer: str, subject: str) -> str:
    """``<issuer>#<subject>``, the issuer's ``%`` and ``#`` escaped (``%25``, ``%23``), so
    two identities never share an id."""
    escaped = issuer.replace("%", "%25").replace(EXTERNAL_SEPARATOR, "%23")
    return f"{escaped}{EXTERNAL_SEPARATOR}{subject}"


def is_external_user_id(user_id: str) -> bool:
    """Whether ``user_id`` names an IdP identity (no local username can look like one)."""
    return EXTERNAL_SEPARATOR in user_id


def identity_claims(claims: dict[str, Any]) -> tuple[str, str]:
    """``(issuer, subject)`` of a verified IdP token: each a string of printable
    characters of at most :data:`MAX_CLAIM_CHARS` (they reach audit rows and logs), else
    ``AuthError("invalid claim: …")``; a token with no ``iss`` is :data:`UNNAMED_ISSUER`'s."""
    subject = _plain(claims, "sub")
    issuer = _plain(claims, "iss") if claims.get("iss") not in (None, "") else UNNAMED_ISSUER
    return issuer, subject


def _plain(claims: dict[str, Any], name: str) -> str:
    value = claims.get(name)
    if not isinstance(value, str) or not value.isprintable() or len(value) > MAX_CLAIM_CHARS:
        raise AuthError(f"invalid claim: {name}")
    return value
