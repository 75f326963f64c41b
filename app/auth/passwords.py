"""Password hashing with a memory-hard KDF (stdlib ``hashlib.scrypt``).

Stored form: ``scrypt$<n>$<r>$<p>$<salt_b64>$<hash_b64>`` (standard base64, padded).
Parameters are stored with each hash so they can be raised later without breaking
existing users; :func:`verify_password` only accepts parameters inside sane bounds, so a
tampered row cannot make a login burn unbounded memory or CPU.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import secrets

SCHEME = "scrypt"
SCRYPT_N = 2**14
SCRYPT_R = 8
SCRYPT_P = 1
SALT_BYTES = 16
HASH_BYTES = 32

_MAX_N = 2**20
_MAX_R = 32
_MAX_P = 16


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int, dklen: int) -> bytes:
    # maxmem must cover 128 * n * r bytes plus slack, or OpenSSL refuses.
    return hashlib.scrypt(
        password.encode("utf-8"),
        salt=salt,
        n=n,
        r=r,
        p=p,
        dklen=dklen,
        maxmem=256 * n * r + 2**20,
    )


def hash_password(password: str, *, n: int = SCRYPT_N) -> str:
    """Hash ``password`` with a fresh 16-byte salt; the result is safe to store.

    ``n``: the scrypt cost, the settings' ``scrypt_n`` (production keeps the default; the
    test suite lowers it). It is stored with the hash, so verifying costs the same."""
    if not isinstance(password, str):
        raise TypeError("password must be a str")
    salt = secrets.token_bytes(SALT_BYTES)
    digest = _scrypt(password, salt, n, SCRYPT_R, SCRYPT_P, HASH_BYTES)
    salt_b64 = base64.b64encode(salt).decode("ascii")
    hash_b64 = base64.b64encode(digest).decode("ascii")
    return f"{SCHEME}${n}${SCRYPT_R}${SCRYPT_P}${salt_b64}${hash_b64}"


def _parse(stored: str) -> tuple[int, int, int, bytes, bytes] | None:
    parts = stored.split("$")
    if len(parts) != 6 or parts[0] != SCHEME:
        return None
    try:
        n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
        salt = base64.b64decode(parts[4], validate=True)
        digest = base64.b64decode(parts[5], validate=True)
    except (ValueError, binascii.Error):
        return None
    power_of_two = n > 1 and n & (n - 1) == 0
    if not (power_of_two and n <= _MAX_N and 1 <= r <= _MAX_R and 1 <= p <= _MAX_P):
        return None
    if not salt or not 16 <= len(digest) <= 64:
        return None
    return n, r, p, salt, digest


def verify_password(password: str, stored: str | None) -> bool:
    """True when ``password`` matches ``stored``; False for a mismatch or a malformed hash.

    The digest comparison is constant-time (``hmac.compare_digest``).
    """
    if not isinstance(password, str) or not stored:
        return False
    parsed = _parse(stored)
    if parsed is None:
        return False
    n, r, p, salt, expected = parsed
    actual = _scrypt(password, salt, n, r, p, len(expected))
    return hmac.compare_digest(actual, expected)


def dummy_verify(password: str, *, n: int = SCRYPT_N) -> None:
    """Spend the same time as a real verification (used when the user does not exist,
    so response time does not reveal which usernames exist); ``n``: the cost the app
    hashes with (the settings' ``scrypt_n``)."""
    _scrypt(
        password if isinstance(password, str) else "",
        _DUMMY_SALT,
        n,
        SCRYPT_R,
        SCRYPT_P,
        HASH_BYTES,
    )


_DUMMY_SALT = secrets.token_bytes(SALT_BYTES)
