"""Authentication: users' passwords, JWTs (local HS256 and external RS256/JWKS), the
users' active check and the auth checks of an HTTP request.

Modules: ``passwords`` (scrypt), ``tokens`` (issue/decode, pure), ``jwks`` (external key
set), ``gate`` (:class:`AuthGate`: one per app — verify = decode + the user is still
active), ``caches`` (the users' status cache and the verified tokens' cache), ``login``
(authenticate), ``throttle`` (sign-in limits), ``http`` (a request's principal, given the
gate).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.auth.gate import AuthGate
    from app.auth.login import authenticate
    from app.auth.passwords import hash_password, verify_password
    from app.auth.request_auth import bearer_token
    from app.auth.tokens import ROLES, Principal, decode_token, external_role, issue_token

#: public name -> its module: imported on first use, so a command that only hashes a
#: password (``main.py users``) does not load the JWT and JWKS libraries
_HOME = {
    "ROLES": "app.auth.tokens",
    "AuthGate": "app.auth.gate",
    "Principal": "app.auth.tokens",
    "authenticate": "app.auth.login",
    "bearer_token": "app.auth.request_auth",
    "decode_token": "app.auth.tokens",
    "external_role": "app.auth.tokens",
    "hash_password": "app.auth.passwords",
    "issue_token": "app.auth.tokens",
    "verify_password": "app.auth.passwords",
}

__all__ = [
    "ROLES",
    "AuthGate",
    "Principal",
    "authenticate",
    "bearer_token",
    "decode_token",
    "external_role",
    "hash_password",
    "issue_token",
    "verify_password",
]


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module 'app.auth' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value
