"""A minimal Superset REST session for seeding the sandbox (plain httpx).

Not the product's Superset client (that is ``app.superset``): this one only logs in
(bearer token), fetches the CSRF token with its ``session`` cookie for writes, and
turns any unexpected answer into a :class:`SandboxError` with Superset's message.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from app.sandbox.common import SandboxError


def error_message(response: httpx.Response) -> str:
    """Superset's error text from ``{"errors":[…]}``, ``{"message":{…}}`` or ``{"message":"…"}``."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:300] or response.reason_phrase
    if isinstance(body, dict):
        if isinstance(body.get("errors"), list) and body["errors"]:
            return "; ".join(str(e.get("message", e)) for e in body["errors"])
        message = body.get("message")
        if isinstance(message, dict):
            return "; ".join(f"{k}: {v}" for k, v in message.items())
        if message:
            return str(message)
    return json.dumps(body)[:300]


def rison_list(ids: list[int]) -> str:
    return "!(" + ",".join(str(i) for i in ids) + ")"


class SupersetSession:
    """A logged-in session against one instance; use as a context manager."""

    def __init__(self, url: str, username: str, password: str, *, timeout: float = 60.0) -> None:
        self.url = url.rstrip("/")
        self.client = httpx.Client(
            base_url=self.url, timeout=timeout, headers={"Accept": "application/json"}
        )
        self._username = username
        self._password = password
        self._csrf: str | None = None

    def __enter__(self) -> SupersetSession:
        self.login()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.client.close()

    def login(self) -> str:
        """POST /api/v1/security/login; returns the access token (also set as bearer)."""
        response = self.client.post(
            "/api/v1/security/login",
            json={
                "username": self._username,
                "password": self._password,
                "provider": "db",
                "refresh": True,
            },
        )
        if response.status_code != 200:
            raise SandboxError(
                f"login to {self.url} as {self._username} failed "
                f"({response.status_code}): {error_message(response)}"
            )
        token = str(response.json()["access_token"])
        self.client.headers["Authorization"] = f"Bearer {token}"
        self._csrf = None
        return token

    def csrf_token(self) -> str:
        if self._csrf is None:
            body = self.call("GET", "/api/v1/security/csrf_token/")
            self._csrf = str(body["result"])
        return self._csrf

    def raw(
        self, method: str, path: str, *, expect: tuple[int, ...] = (200, 201), **kwargs: Any
    ) -> httpx.Response:
        """Send a request (CSRF header on writes); raise SandboxError unless ``expect``."""
        headers = dict(kwargs.pop("headers", {}) or {})
        if method.upper() != "GET":
            headers["X-CSRFToken"] = self.csrf_token()
            headers["Referer"] = self.url
        try:
            response = self.client.request(method, path, headers=headers, **kwargs)
        except httpx.HTTPError as exc:
            raise SandboxError(f"{method} {self.url}{path} failed: {exc}") from exc
        if response.status_code not in expect:
            raise SandboxError(
                f"{method} {path} on {self.url} answered {response.status_code}: "
                f"{error_message(response)}"
            )
        return response

    def call(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        """Like :meth:`raw` but returns the JSON body."""
        body = self.raw(method, path, **kwargs).json()
        if not isinstance(body, dict):
            raise SandboxError(f"{method} {path} on {self.url} returned {type(body).__name__}")
        return body

    def list_all(self, resource: str, columns: list[str]) -> list[dict[str, Any]]:
        """Every row of ``/api/v1/<resource>/`` (paged by 100) with ``columns``."""
        rows: list[dict[str, Any]] = []
        page = 0
        while True:
            q = f"(columns:!({','.join(columns)}),page:{page},page_size:100)"
            body = self.call("GET", f"/api/v1/{resource}/", params={"q": q})
            rows += body["result"]
            if len(rows) >= body["count"] or not body["result"]:
                return rows
            page += 1
