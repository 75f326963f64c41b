"""Turn a Superset error response into one of the typed errors of :mod:`app.errors`.

Superset answers errors in three JSON shapes (plus HTML when something upstream broke):

* ``{"errors": [{"message": "...", "error_type": "...", ...}]}``  (SIP-40 errors)
* ``{"message": {"field": ["msg", ...]}}``                         (marshmallow validation)
* ``{"message": "..."}``                                           (plain)
* ``{"msg": "..."}``                                               (flask-jwt-extended)

Superset's own refusals of the account a call acts as become
:class:`~app.errors.SupersetRefused` (``superset_denied``, Superset's words verbatim): a
403, and the 500s SQL Lab answers for access errors — a ``*_SECURITY_ACCESS_ERROR``, or the
``GENERIC_BACKEND_ERROR`` "The database referenced in this query was not found" it gives a
person whose database access hides the database (6.1's base filter).
"""

from __future__ import annotations

import html
import re
from typing import Any

import httpx

from app.errors import (
    SupersetAuthError,
    SupersetError,
    SupersetNotFoundError,
    SupersetRefused,
    SupersetUnavailableError,
)

_MAX = 500
#: SQL Lab's 500s that say the account may not, not that Superset is down
_HIDDEN_DATABASE = re.compile(r"database referenced in this query was not found", re.I)
ACCESS_ERROR_TYPES = frozenset({"MISSING_OWNERSHIP_ERROR", "OAUTH2_REDIRECT_ERROR"})
# the first <title> and the text up to its </title> (a search would try each later <title>)
_TITLE = re.compile(r"\A(?>.*?<title>)(.*?)</title>", re.IGNORECASE | re.DOTALL)
# a tag, or the unclosed rest of the text from a "<" no ">" follows (taken whole, and kept:
# a search would otherwise scan to the end of the text from every "<" in that rest)
_TAG = re.compile(r"<[^>]+>|<[^>]*+\Z")
_BLANKS = re.compile(r"\s+")


def _flatten(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "; ".join(_flatten(v) for v in value)
    if isinstance(value, dict):
        return "; ".join(f"{k}: {_flatten(v)}" for k, v in value.items())
    return str(value)


def error_message(response: httpx.Response) -> tuple[str, str | None]:
    """The human message of an error response and the Superset error_type, if any."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict):
        errors = body.get("errors")
        if isinstance(errors, list) and errors:
            msgs = [
                _flatten(e.get("message", e)) if isinstance(e, dict) else str(e) for e in errors
            ]
            first = errors[0] if isinstance(errors[0], dict) else {}
            return "; ".join(m for m in msgs if m), first.get("error_type")
        for key in ("message", "msg", "error", "description"):
            if body.get(key):
                return _flatten(body[key]), None
        return _flatten(body) or response.reason_phrase, None
    text = response.text or ""
    title = _TITLE.match(text)
    if title:
        return html.unescape(title.group(1).strip()), None
    stripped = _TAG.sub(lambda m: " " if m.group(0).endswith(">") else m.group(0), text)
    stripped = _BLANKS.sub(" ", stripped).strip()
    return stripped or response.reason_phrase or "no details", None


def scrub(text: str, secrets: list[str]) -> str:
    """Remove secrets from a message and keep it short."""
    for secret in secrets:
        if secret and len(secret) >= 3:
            text = text.replace(secret, "***")
    return text if len(text) <= _MAX else text[: _MAX - 1] + "…"


def is_access_refusal(status: int, message: str, error_type: str | None) -> bool:
    """Whether an answer is Superset refusing the account (not a fault of Superset's)."""
    if status == 403:
        return True
    if error_type and (
        error_type.endswith("_SECURITY_ACCESS_ERROR") or error_type in ACCESS_ERROR_TYPES
    ):
        return True
    return error_type == "GENERIC_BACKEND_ERROR" and bool(_HIDDEN_DATABASE.search(message))


def error_for(
    response: httpx.Response,
    *,
    env_id: str,
    what: str,
    secrets: list[str],
    account: str | None = None,
) -> SupersetError | SupersetUnavailableError:
    """The typed error for a non-2xx response (``what`` is e.g. 'GET /api/v1/dashboard/1';
    ``account``: the Superset account the request acted as)."""
    status = response.status_code
    message, error_type = error_message(response)
    text = scrub(f"Superset '{env_id}' {what} failed ({status}): {message}", secrets)
    if is_access_refusal(status, message, error_type):
        said = scrub(message, secrets)
        return SupersetRefused(
            text,
            code="superset_denied", env_id=env_id, reason=said, account=account,
            status_code=status, error_type=error_type,
        )  # fmt: skip
    details = {"env_id": env_id, "error_type": error_type}
    if status >= 500:
        return SupersetUnavailableError(text, status_code=status, **details)
    if status in (401, 403):
        return SupersetAuthError(text, status_code=status, **details)
    if status == 404:
        return SupersetNotFoundError(text, status_code=status, **details)
    return SupersetError(text, status_code=status, **details)


def unreachable(
    exc: httpx.HTTPError, *, env_id: str, url: str, what: str
) -> SupersetUnavailableError:
    """A connection-level failure (refused, reset, timeout) as a transient error."""
    kind = type(exc).__name__
    return SupersetUnavailableError(
        f"Superset '{env_id}' at {url} is unreachable ({kind}) during {what}",
        status_code=None,
        env_id=env_id,
        error_type=kind,
    )
