"""Authentication: users' passwords, JWTs (local HS256 and external RS256/JWKS), the
users' active check and the auth checks of an HTTP request.

Modules: ``passwords`` (scrypt), ``tokens`` (issue/decode, pure), ``jwks`` (external key
set), ``active`` (the users' status and its cache), ``gate`` (:class:`AuthGate`: one per
app — verify = decode + the user is still active), ``login`` (authenticate), ``throttle``
(sign-in limits), ``http`` (a request's principal, given the gate).
"""

from app.auth.gate import AuthGate
from app.auth.http import bearer_token
from app.auth.login import authenticate
from app.auth.passwords import hash_password, verify_password
from app.auth.tokens import ROLES, Principal, decode_token, external_role, issue_token

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
