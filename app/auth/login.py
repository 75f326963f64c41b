"""Username/password authentication against the users table."""

from __future__ import annotations

import logging

from sqlmodel import Session

from app.auth.passwords import SCRYPT_N, dummy_verify, verify_password
from app.auth.tokens import ROLES, Principal
from app.store.users import get_user_by_name

log = logging.getLogger("ss_tools.auth")


def authenticate(
    session: Session, *, username: str, password: str, scrypt_n: int = SCRYPT_N
) -> Principal | None:
    """The principal for valid credentials of an enabled user, else None.

    An unknown user costs the same KDF work as a wrong password (``scrypt_n``: the cost the
    app hashes with), so timing does not reveal which usernames exist. The password is
    never logged.
    """
    user = get_user_by_name(session, username=username) if username else None
    if user is None:
        dummy_verify(password, n=scrypt_n)
        return None
    if not verify_password(password, user.password_hash):
        return None
    if user.disabled:
        log.info("login refused for disabled user %r", username)
        return None
    if user.role not in ROLES:
        log.warning("user %r has unknown role %r; login refused", username, user.role)
        return None
    return Principal(user_id=user.username, role=user.role, stamp=user.token_stamp)
