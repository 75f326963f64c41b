"""The Superset HTTP session under :class:`~app.superset.client.SupersetClient`: one pooled
``httpx.AsyncClient`` per environment, authenticated requests, typed errors.

Authentication: ``POST /api/v1/security/login`` (provider db, refresh true) gives an
access token (900 s) and a refresh token; the client refreshes at ~800 s and logs in
again once when Superset answers 401. Writes (POST/PUT/DELETE) carry the CSRF token
from ``/api/v1/security/csrf_token/`` plus the session cookie that endpoint sets.
Errors become typed errors (see :mod:`app.superset.errors`); 5xx and connection
errors are :class:`SupersetUnavailableError` (transient: read tools retry once).
Credentials never appear in messages, logs or reprs. Every answer is read within
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
from app.errors import SupersetAuthError, SupersetError
from app.superset.body import json_of, json_or_empty, send_capped
from app.superset.environments import Environment
from app.superset.errors import error_for, error_message, unreachable
from app.superset.paths import check_path

log = logging.getLogger(__name__)

ACCESS_TOKEN_TTL_S = 900.0
REFRESH_AFTER_S = 800.0
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_AUTH_PATHS = ("/api/v1/security/login", "/api/v1/security/refresh")


class SupersetSession:
    """Authenticated requests to one Superset environment (the endpoints are
    :class:`~app.superset.client.SupersetClient`'s). Safe to share between concurrent tasks."""

    #: the largest answer read (:mod:`app.superset.body`); a larger one is a SupersetError
    max_response_bytes = MAX_RESPONSE_BYTES

    def __init__(
        self,
        env: Environment,
        transport: httpx.AsyncBaseTransport | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
        timeout_s: float | None = None,
    ) -> None:
        self.env = env
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
        self._issued_at = 0.0
        self._csrf: str | None = None
        self._lock = asyncio.Lock()
        self.logins = 0
        self.refreshes = 0

    def __repr__(self) -> str:
        return f"{type(self).__name__}(env={self.env.id!r}, url={self.env.url!r})"

    # --- auth -------------------------------------------------------------------------
    def _secrets(self) -> list[str]:
        return [s for s in (self.env.password_value(), self._access, self._refresh) if s]

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

    async def _login(self) -> None:
        if self.env.password is None:
            raise SupersetAuthError(
                f"Superset '{self.env.id}': no password available for user "
                f"{self.env.username!r}; check environments.toml",
                env_id=self.env.id,
            )
        body = {
            "username": self.env.username,
            "password": self.env.password_value(),
            "provider": "db",
            "refresh": True,
        }
        resp = await self._raw("POST", "/api/v1/security/login", json=body)
        if resp.status_code != 200:
            if resp.status_code in (400, 401, 403, 422):
                msg, _ = error_message(resp)
                raise SupersetAuthError(
                    f"Superset '{self.env.id}' refused the login of user "
                    f"{self.env.username!r} ({resp.status_code}): {msg}"[:300],
                    status_code=resp.status_code,
                    env_id=self.env.id,
                )
            raise error_for(resp, env_id=self.env.id, what="login", secrets=self._secrets())
        data = resp.json()
        self._access = data.get("access_token")
        self._refresh = data.get("refresh_token")
        if not self._access:
            raise SupersetAuthError(f"Superset '{self.env.id}' login returned no access token")
        self._issued_at = self._clock()
        self._csrf = None
        self.logins += 1
        log.info("superset %s: logged in as %s", self.env.id, self.env.username)

    async def _refresh_token(self) -> None:
        resp = await self._raw(
            "POST",
            "/api/v1/security/refresh",
            headers={"Authorization": f"Bearer {self._refresh}"},
        )
        if resp.status_code != 200:
            log.info("superset %s: refresh refused (%s), logging in", self.env.id, resp.status_code)
            await self._login()
            return
        self._access = resp.json().get("access_token") or self._access
        self._issued_at = self._clock()
        self.refreshes += 1

    async def _ensure_token(self, *, force_login: bool = False, stale: str | None = None) -> str:
        async with self._lock:
            if force_login:
                # Another task may already have logged in again since our 401.
                if self._access is None or self._access == stale:
                    await self._login()
            elif self._access is None:
                await self._login()
            elif self._clock() - self._issued_at >= REFRESH_AFTER_S:
                if self._refresh:
                    await self._refresh_token()
                else:
                    await self._login()
            assert self._access is not None
            return self._access

    async def _ensure_csrf(self, token: str, *, renew: bool = False) -> str:
        async with self._lock:
            if self._csrf is None or renew:
                resp = await self._raw(
                    "GET",
                    "/api/v1/security/csrf_token/",
                    headers={"Authorization": f"Bearer {token}"},
                )
                if resp.status_code != 200:
                    raise error_for(
                        resp, env_id=self.env.id, what="csrf token", secrets=self._secrets()
                    )
                self._csrf = resp.json().get("result")
                if not self._csrf:
                    raise SupersetError(f"Superset '{self.env.id}' returned no CSRF token")
            return self._csrf

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
            headers = {"Authorization": f"Bearer {token}"}
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
            if resp.status_code == 401 and not relogged:
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
        raise error_for(resp, env_id=self.env.id, what=f"{method} {path}", secrets=self._secrets())

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
