"""Authentication: users' passwords, JWTs (local HS256 and external RS256/JWKS) and the
FastAPI dependencies that turn a Bearer header into a :class:`Principal`.

Modules: ``passwords`` (scrypt), ``tokens`` (issue/verify), ``jwks`` (external key set),
``login`` (authenticate), ``http`` (require_principal, require_admin).
"""

from app.auth.http import audit_auth_event, bearer_token, require_admin, require_principal
from app.auth.login import authenticate
from app.auth.passwords import hash_password, verify_password
from app.auth.tokens import ROLES, Principal, external_role, issue_token, verify_token

__all__ = [
    "ROLES",
    "Principal",
    "audit_auth_event",
    "authenticate",
    "bearer_token",
    "external_role",
    "hash_password",
    "issue_token",
    "require_admin",
    "require_principal",
    "verify_password",
    "verify_token",
]
