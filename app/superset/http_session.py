"""The Superset HTTP session under :class:`~app.superset.client.SupersetClient`: one
``httpx.AsyncClient`` per session (its own connections and cookie jar), authenticated
requests, typed errors.

Authentication comes from the session's :class:`~app.superset.credentials.Credentials`:
the environment's service account, a person's linked account, or a person's signed
assertion (one source per session, never another: a person's session never falls back to
the service account). A token is renewed at ~800 s (Superset's access token lives 900 s),
and signed in again once when Superset answers 401. Writes (POST/PUT/DELETE) carry the CSRF
token from ``/api/v1/security/csrf_token/`` plus the session cookie that endpoint sets,
kept in this session's own cookie jar (a person's CSRF session is theirs alone).
Errors become typed errors (see :mod:`app.superset.error_responses`); 5xx and connection errors
are :class:`SupersetUnavailableError` (transient: read tools retry once). Credentials
never appear in messages, logs or reprs. Every answer is read within
:attr:`SupersetSession.max_response_bytes` and a large JSON body is parsed off the event
loop (:mod:`app.superset.body`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

import httpx

from app.caps import MAX_RESPONSE_BYTES
from app.errors import SupersetError
from app.superset.body import json_of, json_or_empty, send_capped
from app.superset.credentials import Credentials, ServiceCredentials
from app.superset.environments import Environment
from app.superset.error_responses import error_for, error_message, unreachable
from app.superset.paths import check_path

log = logging.getLogger(__name__)

ACCESS_TOKEN_TTL_S = 900.0
REFRESH_AFTER_S = 800.0
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class SupersetSession:
    """Authenticated requests to one Superset environment as one account (the endpoints
    are :class:`~app.superset.client.SupersetClient`'s). Safe to share between concurrent
    tasks of that account; never between two accounts."""

    #: the largest answer read (:mod:`app.superset.body`); a larger one is a SupersetError
    max_response_bytes = MAX_RESPONSE_BYTES

    def __init__(
        self,
        env: Environment,
        transport: httpx.AsyncBaseTransport | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        timeout_s: float | None = None,
        credentials: Credentials | None = None,
    ) -> None:
        self.env = env
        self.credentials = credentials if credentials is not None else ServiceCredentials(env)
        self._clock = clock
        timeout = timeout_s if timeout_s is not None else env.timeout
        self._http = httpx.AsyncClient(
            base_url=env.url,
            headers={"Accept": "application/json", "User-Agent": "ss-tools-agent"},
            timeout=httpx.Timeout(timeout, connect=min(timeout, 5.0)),
            verify=env.verify_ssl,
            transport=transport,
            limits=httpx.Limits(max_connections=20, max_keepalive_connections=10),
            follow_redirects=False,
        )
        self._access: str | None = None
        self._refresh: str | None = None
        self._signed_in = False
        self._issued_at = 0.0
        self._csrf: str | None = None
        self._lock = asyncio.Lock()
        self.logins = 0
        self.refreshes = 0

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(env={self.env.id!r}, url={self.env.url!r}, "
            f"as={self.credentials.kind}:{self.credentials.account!r})"
        )

    @property
    def account(self) -> str:
        """The Superset username this session acts as."""
        return self.credentials.account

    # --- auth -------------------------------------------------------------------------
    def _secrets(self) -> list[str]:
        return [s for s in (*self.credentials.secrets(), self._access, self._refresh) if s]

    async def _raw(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        what = f"{method} {path}"
        try:
            request = self._http.build_request(method, path, **kwargs)
            return await send_capped(
                self._http,
                request,
                max_bytes=self.max_response_bytes,
                what=what,
                env_id=self.env.id,
            )
        except httpx.HTTPError as exc:
            log.info("superset %s %s: %s", self.env.id, what, type(exc).__name__)
            raise unreachable(exc, env_id=self.env.id, url=self.env.url, what=what) from None

    async def _sign_in(self, *, renew: bool) -> None:
        if renew and self._signed_in:
            grant = await self.credentials.renew(self._raw, self._refresh)
            self.refreshes += 1
        else:
            grant = await self.credentials.sign_in(self._raw)
            self.logins += 1
        if grant.refresh is not None or not renew:
            self._refresh = grant.refresh
        self._access = grant.access
        self._signed_in = True
        self._issued_at = self._clock()
        self._csrf = None

    async def _ensure_token(
        self, *, force_login: bool = False, stale: str | None = None
    ) -> str | None:
        """The access token to send (None: the credentials' headers authenticate)."""
        async with self._lock:
            if force_login:
                # Another task may already have signed in again since our 401.
                if not self._signed_in or self._access == stale:
                    await self._sign_in(renew=False)
            elif not self._signed_in:
                await self._sign_in(renew=False)
            elif self._access is not None and self._clock() - self._issued_at >= REFRESH_AFTER_S:
                await self._sign_in(renew=True)
            return self._access

    def prime(self, access_token: str) -> None:
        """Start from an access token Superset just issued to this session's account (a
        link's sign-in), so the first call needs no refresh."""
        self._access, self._signed_in, self._issued_at = access_token, True, self._clock()

    async def authenticate(self) -> None:
        """Have a working token now (sign in or renew when needed): a refused link or login
        is raised here, before any other request."""
        await self._ensure_token()

    def _auth_headers(self, token: str | None) -> dict[str, str]:
        headers = self.credentials.headers()
        if token:
            headers["Authorization"] = f"Bearer {token}"
        return headers

    async def _ensure_csrf(self, token: str | None, *, renew: bool = False) -> str:
        async with self._lock:
            if self._csrf is None or renew:
                resp = await self._raw(
                    "GET", "/api/v1/security/csrf_token/", headers=self._auth_headers(token)
                )
                if resp.status_code != 200:
                    raise self._error(resp, "csrf token")
                self._csrf = resp.json().get("result")
                if not self._csrf:
                    raise SupersetError(f"Superset '{self.env.id}' returned no CSRF token")
            return self._csrf

    def _error(self, resp: httpx.Response, what: str) -> Exception:
        if resp.status_code == 401:
            return self.credentials.refused(resp, what)
        return error_for(
            resp, env_id=self.env.id, what=what, secrets=self._secrets(), account=self.account
        )

    # --- requests ---------------------------------------------------------------------
    async def request(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        json: Any = None,
        files: Any = None,
        data: dict[str, Any] | None = None,
        timeout: float | None = None,
    ) -> httpx.Response:
        """Send an authenticated request; return the 2xx response or raise a typed error.
        ``path`` must be plain (:func:`app.superset.paths.check_path`: ids go in through
        ``api_path``); an unsafe one is an ``UnsafePathError`` and nothing is sent."""
        check_path(path)
        method = method.upper()
        is_write = method in WRITE_METHODS
        token = await self._ensure_token()
        relogged = csrf_renewed = False
        while True:
            headers = self._auth_headers(token)
            if is_write:
                headers["X-CSRFToken"] = await self._ensure_csrf(token)
                headers["Referer"] = self.env.url + "/"
            extra: dict[str, Any] = {}
            if timeout is not None:
                extra["timeout"] = timeout
            resp = await self._raw(
                method, path, params=params, json=json, files=files, data=data,
                headers=headers, **extra,
            )  # fmt: skip
            if resp.status_code == 401 and not relogged and self.credentials.sign_in_again_on_401:
                relogged = True
                token = await self._ensure_token(force_login=True, stale=token)
                continue
            if resp.status_code == 400 and is_write and not csrf_renewed and _csrf_refused(resp):
                csrf_renewed = True
                await self._ensure_csrf(token, renew=True)
                continue
            break
        if resp.is_success:
            return resp
        raise self._error(resp, f"{method} {path}")

    async def get_json(self, path: str, params: dict[str, Any] | None = None) -> Any:
        return await json_of(await self.request("GET", path, params=params))

    async def post_json(self, path: str, json: Any = None) -> Any:
        return await json_or_empty(await self.request("POST", path, json=json))

    async def put_json(self, path: str, json: Any = None) -> Any:
        return await json_or_empty(await self.request("PUT", path, json=json))

    async def delete(self, path: str) -> Any:
        return await json_or_empty(await self.request("DELETE", path))

    async def health(self, timeout: float = 3.0) -> bool:
        """True when ``/health`` answers 200 within ``timeout`` seconds (no login)."""
        try:
            resp = await self._http.get("/health", timeout=timeout)
        except httpx.HTTPError as exc:
            log.info("superset %s health: %s", self.env.id, type(exc).__name__)
            return False
        return resp.status_code == 200

    async def aclose(self) -> None:
        await self._http.aclose()


def _csrf_refused(resp: httpx.Response) -> bool:
    msg, _ = error_message(resp)
    return "csrf" in msg.lower()
