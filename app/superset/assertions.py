"""Signed assertions for ``identity = "assertion"`` environments (SSO sites).

On a site whose people sign in through OAuth, OIDC or a remote user there is no password a
person could link. The site instead installs a small security manager
(``deploy/superset/act_as_security.py``) that trusts one thing: a short-lived RS256 JWT
signed by ss-tools, in the ``X-Act-As`` header (``settings.superset_assertion_header``):

* ``iss`` — ``settings.superset_assertion_issuer`` (default ``ss-tools``);
* ``aud`` — the environment's ``assertion_audience`` (default: its URL), so an assertion
  for one site is refused by another;
* ``sub`` — the person's Superset username, from an explicit mapping (the users table's
  ``superset_username``), never guessed;
* ``iat`` / ``exp`` — at most 5 minutes apart (``superset_assertion_ttl_s``, default 120 s);
  ``jti`` — unique.

The key pair is the operator's (``SS_TOOLS_SUPERSET_ASSERTION_KEY_FILE``, a PEM private
key); dev mode generates one into ``<data_dir>/.assertion_key.pem``. The public half is
published as a PEM file (``python main.py superset public-key``) and as a JWKS
(``GET /api/superset/jwks.json``). A signed assertion is reused for a short while (at most
half its lifetime) so a busy person costs one RSA signature a minute, not one a request.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import RSAKey

from app.errors import ConfigError
from app.settings import Settings

KEY_FILE_NAME = ".assertion_key.pem"
ALG = "RS256"
REUSE_MAX_S = 60.0


class AssertionSigner:
    """Signs assertions with one RSA key; publishes its public half."""

    def __init__(
        self,
        key: RSAKey,
        *,
        issuer: str,
        ttl_s: int,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not 0 < ttl_s <= 300:
            raise ConfigError(f"an assertion lives at most 300 s, not {ttl_s}")
        self._key = key
        self.issuer = issuer
        self.ttl_s = ttl_s
        self.kid = key.thumbprint()
        self._clock = clock
        self._reuse_s = min(REUSE_MAX_S, ttl_s / 2)
        self._made: dict[tuple[str, str], tuple[float, str]] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"AssertionSigner(kid={self.kid!r}, issuer={self.issuer!r})"

    def sign(self, username: str, audience: str) -> str:
        """An assertion that ``username`` acts, for the site named ``audience``."""
        now = self._clock()
        with self._lock:
            made = self._made.get((username, audience))
            if made is not None and now - made[0] < self._reuse_s:
                return made[1]
        claims = {
            "iss": self.issuer,
            "aud": audience,
            "sub": username,
            "iat": int(now),
            "exp": int(now) + self.ttl_s,
            "jti": uuid.uuid4().hex,
        }
        token = jwt.encode({"alg": ALG, "kid": self.kid, "typ": "JWT"}, claims, self._key)
        with self._lock:
            if len(self._made) > 4096:
                self._made.clear()
            self._made[(username, audience)] = (now, token)
        return token

    def jwks(self) -> dict[str, Any]:
        """The public key as a JSON Web Key Set."""
        public = dict(self._key.as_dict(private=False))
        public.update({"kid": self.kid, "alg": ALG, "use": "sig"})
        return {"keys": [public]}

    def public_pem(self) -> str:
        return self._key.as_pem(private=False).decode("ascii")


def _read_key(path: Path) -> RSAKey:
    try:
        return RSAKey.import_key(path.read_bytes())
    except OSError as exc:
        raise ConfigError(f"superset_assertion_key_file {path}: {exc.strerror}") from None
    except (JoseError, ValueError, TypeError) as exc:
        raise ConfigError(
            f"superset_assertion_key_file {path}: not an RSA private key in PEM "
            f"({type(exc).__name__})"
        ) from None


def _dev_key(data_dir: Path) -> RSAKey:
    path = data_dir / KEY_FILE_NAME
    if path.exists():
        return _read_key(path)
    data_dir.mkdir(parents=True, exist_ok=True)
    key = RSAKey.generate_key(2048)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key.as_pem(private=True))
    return key


def load_signer(settings: Settings) -> AssertionSigner | None:
    """The signer of the configured key; in dev mode without one, the data dir's
    generated key; else None."""
    if settings.superset_assertion_key_file is not None:
        key = _read_key(Path(settings.superset_assertion_key_file))
    elif settings.dev:
        key = _dev_key(Path(settings.data_dir))
    else:
        return None
    if key.is_private is False:
        raise ConfigError("superset_assertion_key_file holds a public key: give the private key")
    return AssertionSigner(
        key, issuer=settings.superset_assertion_issuer, ttl_s=settings.superset_assertion_ttl_s
    )
