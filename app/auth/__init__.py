"""Authentication: users' passwords, JWTs (local HS256 and external RS256/JWKS) and the
FastAPI dependencies that turn a Bearer header into a :class:`Principal`.

Modules: ``passwords`` (scrypt), ``tokens`` (issue/verify), ``jwks`` (external key set),
``active`` (verify_token: signature + the user is still active), ``login``
(authenticate), ``throttle`` (sign-in limits), ``http`` (require_principal, require_admin).
"""

from app.auth.active import ensure_active, forget_user, verify_token
from app.auth.http import audit_auth_event, bearer_token, require_admin, require_principal
from app.auth.login import authenticate
from app.auth.passwords import hash_password, verify_password
from app.auth.tokens import ROLES, Principal, decode_token, external_role, issue_token

__all__ = [
    "ROLES",
    "Principal",
    "audit_auth_event",
    "authenticate",
    "bearer_token",
    "decode_token",
    "ensure_active",
    "external_role",
    "forget_user",
    "hash_password",
    "issue_token",
    "require_admin",
    "require_principal",
    "verify_password",
    "verify_token",
]
