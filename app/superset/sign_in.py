"""One sign-in of a person to Superset, to link their account (``app.superset.accounts``):
``/api/v1/security/login`` with ``refresh: true`` and the environment's provider, then
``/api/v1/me/`` to check the account is active. The password goes into that one request
and nowhere else; a refusal carries Superset's own reason.
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from app.errors import SsToolsError
from app.superset.environments import Environment
from app.superset.error_responses import error_message

#: flask-jwt-extended's default refresh lifetime (Superset 6.1 keeps it): when the token's
#: own ``exp`` cannot be read
REFRESH_LIFETIME = timedelta(days=30)


class LinkRefused(SsToolsError):
    """A link was not made: ``status`` (the HTTP answer), ``error`` (its code) and
    ``reason`` (Superset's own words when it refused the sign-in)."""

    def __init__(self, status: int, error: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.error, self.reason = status, error, reason


def token_expiry(token: str | None) -> datetime | None:
    """The ``exp`` a JWT states (read, not verified: only to show when a link ends)."""
    try:
        payload = (token or "").split(".")[1]
        exp = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["exp"]
        return datetime.fromtimestamp(int(exp), UTC)
    except (IndexError, ValueError, KeyError, TypeError):
        return None


async def sign_in_once(
    env: Environment,
    username: str,
    password: str,
    transport: httpx.AsyncBaseTransport | None = None,
) -> tuple[str, str, dict[str, Any]]:
    """Sign ``username`` in to ``env`` once (``refresh: true``, the environment's provider)
    and check the account is active: (access token, refresh token, /me's result). Raises
    LinkRefused with Superset's reason."""
    async with httpx.AsyncClient(
        base_url=env.url, transport=transport, verify=env.verify_ssl,
        timeout=httpx.Timeout(env.timeout, connect=min(env.timeout, 5.0)),
        headers={"Accept": "application/json", "User-Agent": "ss-tools-agent"},
    ) as http:  # fmt: skip
        try:
            resp = await http.post(
                "/api/v1/security/login",
                json={"username": username, "password": password,
                      "provider": env.login_provider, "refresh": True},
            )  # fmt: skip
            if resp.status_code != 200:
                said, _ = error_message(resp)
                status = 503 if resp.status_code >= 500 else 422
                error = "unavailable" if status == 503 else "superset_login_refused"
                raise LinkRefused(
                    status, error, f"Superset '{env.id}' refused the sign-in: {said}"[:300]
                )
            tokens = resp.json()
            access, refresh = tokens.get("access_token"), tokens.get("refresh_token")
            if not access or not refresh:
                raise LinkRefused(503, "unavailable", f"Superset '{env.id}' issued no tokens")
            me = await http.get("/api/v1/me/", headers={"Authorization": f"Bearer {access}"})
        except httpx.HTTPError as exc:
            raise LinkRefused(
                503, "unavailable", f"Superset '{env.id}' is unreachable ({type(exc).__name__})"
            ) from None
    result = (me.json().get("result") or {}) if me.status_code == 200 else {}
    if not result.get("is_active", False):
        raise LinkRefused(
            422, "superset_login_refused",
            f"Superset '{env.id}' does not show {username!r} as an active account",
        )  # fmt: skip
    return access, refresh, result
