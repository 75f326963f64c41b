"""Linked Superset accounts' secrets, encrypted at rest.

A person's link keeps the refresh token Superset issued; it is a bearer credential for 30
days, so it is stored only sealed: ``cryptography``'s Fernet (AES-128-CBC with an
HMAC-SHA256 over the whole token: a changed byte fails to open, never opens to garbage).

The keys come from the settings only — ``SS_TOOLS_SECRET_KEY`` (one, or several separated
by commas) or ``SS_TOOLS_SECRET_KEY_FILE`` (one a line) — never from the database, so a
copy of the database alone opens nothing. Each configured secret (at least 32 characters)
is stretched into a Fernet key with HKDF-SHA256. Several keys, newest first, make a
``MultiFernet``: new tokens are sealed with the first key and any listed key opens them,
so a key rotates without losing a link (put the new key in front; drop the old one once
:meth:`Sealer.rotate` has re-sealed the rows, or once every link sealed with it expired).

In dev mode with no key configured, one is generated into ``<data_dir>/.secret_key``
(mode 600) and kept across restarts, like the JWT secret (``app.bootstrap``).
"""

from __future__ import annotations

import base64
import os
import secrets
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from app.errors import ConfigError, SsToolsError
from app.settings import Settings

KEY_FILE_NAME = ".secret_key"
MIN_SECRET_CHARS = 32
_INFO = b"ss-tools: linked Superset accounts, v1"


class SealError(SsToolsError):
    """A sealed value none of the configured keys opens (its key was dropped, or the value
    was changed)."""


def fernet_key(secret: str) -> bytes:
    """The Fernet key of one configured secret (HKDF-SHA256, fixed context)."""
    if len(secret) < MIN_SECRET_CHARS:
        raise ConfigError(
            f"a secret key has {len(secret)} characters; SS_TOOLS_SECRET_KEY needs at least "
            f"{MIN_SECRET_CHARS} (python -c 'import secrets; print(secrets.token_urlsafe(48))')"
        )
    hkdf = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO)
    return base64.urlsafe_b64encode(hkdf.derive(secret.encode("utf-8")))


class Sealer:
    """Seals and opens short secrets with the configured keys, newest first."""

    def __init__(self, secrets_newest_first: list[str]) -> None:
        if not secrets_newest_first:
            raise ConfigError("no secret key configured (SS_TOOLS_SECRET_KEY)")
        self._fernet = MultiFernet([Fernet(fernet_key(s)) for s in secrets_newest_first])
        self.keys = len(secrets_newest_first)

    def __repr__(self) -> str:
        return f"Sealer(keys={self.keys})"

    def seal(self, text: str) -> str:
        """``text`` encrypted with the newest key (a URL-safe token)."""
        return self._fernet.encrypt(text.encode("utf-8")).decode("ascii")

    def open(self, token: str) -> str:
        """The text ``token`` seals; :class:`SealError` when no listed key opens it."""
        try:
            return self._fernet.decrypt(token.encode("ascii")).decode("utf-8")
        except (InvalidToken, UnicodeError) as exc:
            raise SealError("a sealed secret cannot be opened with the configured keys") from exc

    def rotate(self, token: str) -> str:
        """``token`` sealed again with the newest key (opened with any listed key)."""
        try:
            return self._fernet.rotate(token.encode("ascii")).decode("ascii")
        except (InvalidToken, UnicodeError) as exc:
            raise SealError("a sealed secret cannot be opened with the configured keys") from exc


def _split(text: str, sep: str) -> list[str]:
    return [part.strip() for part in text.split(sep) if part.strip()]


def configured_secrets(settings: Settings) -> list[str]:
    """The configured secrets, newest first: the setting, else its file, else (dev mode
    only) the data dir's generated one; [] when there is none."""
    if settings.secret_key is not None:
        return _split(settings.secret_key.get_secret_value(), ",")
    if settings.secret_key_file is not None:
        try:
            text = Path(settings.secret_key_file).read_text(encoding="utf-8")
        except OSError as exc:
            raise ConfigError(
                f"secret_key_file {settings.secret_key_file}: {exc.strerror}"
            ) from None
        found = _split(text, "\n")
        if not found:
            raise ConfigError(f"secret_key_file {settings.secret_key_file}: no key in it")
        return found
    if settings.dev:
        return [_dev_secret(Path(settings.data_dir))]
    return []


def _dev_secret(data_dir: Path) -> str:
    path = data_dir / KEY_FILE_NAME
    if path.exists():
        value = path.read_text(encoding="utf-8").strip()
        if value:
            return value
    data_dir.mkdir(parents=True, exist_ok=True)
    value = secrets.token_urlsafe(48)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(value + "\n")
    return value


def load_sealer(settings: Settings) -> Sealer | None:
    """The sealer of the configured keys, or None when none is configured."""
    found = configured_secrets(settings)
    return Sealer(found) if found else None
