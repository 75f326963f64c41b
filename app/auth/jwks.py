"""Public keys of an external identity provider (RS256), from a JWKS URL or file.

The URL is fetched with httpx and cached for ``ttl_s`` (10 minutes). A token whose
``kid`` is not in the cached set triggers one refetch (key rotation), at most once per
``min_refetch_s`` so a stream of forged kids cannot hammer the IdP. A failed refresh
keeps serving the previous set while it exists. The file is re-read when it changes.
One cache per app (held by its :class:`app.auth.gate.AuthGate`).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from joserfc.errors import JoseError
from joserfc.jwk import RSAKey

from app.errors import AuthError

log = logging.getLogger("ss_tools.auth")

JWKS_TTL_S = 600.0
MIN_REFETCH_S = 10.0
FETCH_TIMEOUT_S = 5.0

Fetcher = Callable[[str], dict[str, Any]]


def _http_fetch(url: str) -> dict[str, Any]:
    response = httpx.get(url, timeout=FETCH_TIMEOUT_S, follow_redirects=False)
    response.raise_for_status()
    return response.json()


def _rsa_keys(document: Any, origin: str) -> dict[str, RSAKey]:
    """Import the RSA signing keys that carry a ``kid``; other keys are ignored."""
    if not isinstance(document, dict) or not isinstance(document.get("keys"), list):
        raise AuthError("key set unavailable", detail=f"{origin}: no 'keys' list")
    keys: dict[str, RSAKey] = {}
    for entry in document["keys"]:
        if not isinstance(entry, dict) or entry.get("kty") != "RSA":
            continue
        if not isinstance(entry.get("kid"), str) or not entry["kid"]:
            continue
        if entry.get("use", "sig") != "sig":
            continue
        try:
            key = RSAKey.import_key(entry)
        except (JoseError, ValueError, TypeError) as exc:
            log.warning("jwks %s: skipping key %r: %s", origin, entry.get("kid"), exc)
            continue
        keys[str(entry["kid"])] = key
    return keys


class JwksCache:
    """Looks up an RS256 verification key by ``kid``."""

    def __init__(
        self,
        *,
        url: str | None = None,
        file: Path | None = None,
        ttl_s: float = JWKS_TTL_S,
        min_refetch_s: float = MIN_REFETCH_S,
        fetch: Fetcher | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if not url and not file:
            raise ValueError("JwksCache needs a url or a file")
        self.url = url
        self.file = file
        self.ttl_s = ttl_s
        self.min_refetch_s = min_refetch_s
        self._fetch = fetch or _http_fetch
        self._clock = clock
        self._lock = threading.Lock()
        self._keys: dict[str, RSAKey] = {}
        self._loaded_at: float | None = None
        self._file_stamp: tuple[float, int] | None = None
        self.fetch_count = 0

    def key_for(self, kid: str | None) -> RSAKey:
        """The key with this ``kid``; raises ``AuthError('unknown key')`` if none."""
        if not kid:
            raise AuthError("unknown key")
        with self._lock:
            if self.file is not None:
                self._load_file()
            else:
                self._load_url(kid)
            key = self._keys.get(kid)
        if key is None:
            raise AuthError("unknown key")
        return key

    # --- sources ----------------------------------------------------------------
    def _load_file(self) -> None:
        assert self.file is not None
        try:
            stat = self.file.stat()
            stamp = (stat.st_mtime, stat.st_size)
            if stamp == self._file_stamp:
                return
            document = json.loads(self.file.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError) as exc:
            log.warning("jwks file %s unreadable: %r", self.file, exc)
            raise AuthError("key set unavailable") from exc
        self._keys = _rsa_keys(document, str(self.file))
        self._file_stamp = stamp

    def _load_url(self, kid: str) -> None:
        now = self._clock()
        stale = self._loaded_at is None or now - self._loaded_at >= self.ttl_s
        unknown = kid not in self._keys
        may_refetch = self._loaded_at is None or now - self._loaded_at >= self.min_refetch_s
        if stale or (unknown and may_refetch):
            self._refresh(now)

    def _refresh(self, now: float) -> None:
        assert self.url is not None
        self.fetch_count += 1
        try:
            keys = _rsa_keys(self._fetch(self.url), self.url)
        except (httpx.HTTPError, ValueError, RecursionError) as exc:
            log.warning("jwks fetch from %s failed: %r", self.url, exc)
            if not self._keys:
                raise AuthError("key set unavailable") from exc
            return  # keep the previous keys; retried after min_refetch_s
        except AuthError:
            if not self._keys:
                raise
            return
        finally:
            self._loaded_at = now
        self._keys = keys
