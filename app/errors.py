"""Typed errors of ss-tools agent.

Hierarchy::

    SsToolsError
    ├── ConfigError                 bad settings, environments.toml or policy.toml
    ├── UIContextError              bad page context (status_code 413 or 422)
    ├── AuthError                   401: missing, expired, tampered token ...
    │   └── ForbiddenError          403: authenticated but not allowed
    ├── ConfirmationError           replayed / expired / foreign / mismatched / too early
    ├── AuditImmutableError         an attempt to update or delete an audit row
    ├── CoordinationError           replicas could not coordinate through PostgreSQL
    │                               (a run lock, a stop signal): the database is unreachable
    └── ToolError                   a tool failed; reaches the model as a tool message
        ├── ToolNotAvailableError   tool outside this turn's filtered set / unknown tool
        ├── NoEnvironmentError      no Superset environment configured / unknown env id
        ├── MaintenanceError        target env is in a maintenance window
        ├── ToolTimeoutError        the tool ran past its timeout
        ├── UnsafePathError         an id or slug that cannot be a Superset URL path segment
        ├── CallRefused             a check before the call said no, with a refusal code
        │                           (an undo: changed_since, not_undoable)
        ├── TransientError          worth one retry for read tools (5xx, connection)
        │   └── SupersetUnavailableError   Superset 5xx or unreachable
        └── SupersetError           Superset answered with an error (status_code, message)
            ├── SupersetAuthError       login/refresh refused
            │   └── SupersetRefused     a typed refusal of acting as a person:
            │                           account_not_linked | link_expired | superset_denied
            └── SupersetNotFoundError   404

Every error carries a human-readable message that is safe to show to the user:
no credentials, no stack traces.
"""

from __future__ import annotations

from typing import Any


class SsToolsError(Exception):
    """Base of every error this product raises on purpose."""

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def __str__(self) -> str:
        return self.message


class ConfigError(SsToolsError):
    """Invalid configuration; the message names the file, line and reason."""


class UIContextError(SsToolsError):
    """Invalid UIContext payload. ``status_code`` is 413 (too large) or 422."""

    def __init__(self, message: str, status_code: int = 422, **details: Any) -> None:
        super().__init__(message, **details)
        self.status_code = status_code
        self.reason = message


class AuthError(SsToolsError):
    status_code = 401


class ForbiddenError(AuthError):
    status_code = 403


class ConfirmationError(SsToolsError):
    """A confirmation was refused. ``reason`` is a stable code:
    unknown | replayed | expired | foreign_user | mismatch | too_early | not_pending."""

    def __init__(self, message: str, reason: str, **details: Any) -> None:
        super().__init__(message, **details)
        self.reason = reason


class AuditImmutableError(SsToolsError):
    """Audit rows are append-only."""


class CoordinationError(SsToolsError):
    """The replicas' coordination through PostgreSQL failed (the run lock could not be
    taken or checked, a stop signal could not be sent): the database did not answer. A
    run is then refused rather than run without its lock."""


class ToolError(SsToolsError):
    """A tool could not do its job."""

    retryable: bool = False

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message, **details)
        self.retry_exhausted = False


class ToolNotAvailableError(ToolError):
    """Unknown tool, or one outside this turn's filtered set."""


class NoEnvironmentError(ToolError):
    """No Superset environment configured, or an unknown env id."""


class MaintenanceError(ToolError):
    """The target environment is in a maintenance window."""


class ToolTimeoutError(ToolError):
    """The tool ran past its timeout; ``details`` has ``retryable`` / ``status_unknown``."""


class UnsafePathError(ToolError):
    """An id or slug that cannot be one segment of a Superset URL path (e.g. ``1/../x``)."""


class CallRefused(ToolError):
    """A tool's own check refused the call (before its card: the guard turns it into a
    typed refusal with ``code``; while it runs: a failure saying so). ``errors`` name what
    was found (e.g. the objects changed since an undoable write); ``facts`` are more of
    the refusal's fields (``reason``, ``required_role``, ``role``)."""

    def __init__(
        self, code: str, message: str, errors: list[str] | None = None, **facts: str | None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.errors = list(errors or [])
        self.facts = facts


class TransientError(ToolError):
    """A failure that may pass: one retry is allowed for read-only tools."""

    retryable = True


class SupersetUnavailableError(TransientError):
    """Superset answered 5xx or could not be reached."""

    def __init__(self, message: str, status_code: int | None = None, **details: Any) -> None:
        super().__init__(message, **details)
        self.status_code = status_code


class SupersetError(ToolError):
    """Superset answered with a client error (4xx)."""

    def __init__(self, message: str, status_code: int | None = None, **details: Any) -> None:
        super().__init__(message, **details)
        self.status_code = status_code


class SupersetAuthError(SupersetError):
    """Superset refused the login or the refreshed token."""


class SupersetRefused(SupersetAuthError):
    """A call that may not act in Superset as its person, as a typed refusal (``code``):

    * ``account_not_linked`` — the person has no link to a Superset account on ``env_id``
      (or, on an assertion environment, no Superset username);
    * ``link_expired`` — Superset no longer honours the link (the account was deactivated,
      or the refresh token's lifetime ran out);
    * ``superset_denied`` — Superset itself refused the person (403, an access error of SQL
      Lab, a refused assertion): ``reason`` is Superset's own words, verbatim.

    Never a reason to try another identity: the call is refused."""

    def __init__(
        self,
        message: str,
        *,
        code: str,
        env_id: str | None,
        reason: str | None = None,
        account: str | None = None,
        status_code: int | None = None,
        **details: Any,
    ) -> None:
        super().__init__(message, status_code=status_code, env_id=env_id, **details)
        self.code = code
        self.env_id = env_id
        self.reason = reason
        self.account = account


class SupersetNotFoundError(SupersetError):
    """Superset answered 404."""


def error_shape(error: str, reason: str, **extra: Any) -> dict[str, Any]:
    """The one JSON shape of every door's refusal: ``{"error": <code>, "reason": <a
    sentence for a person>, **extra}`` (the HTTP API, the MCP door, the pages)."""
    return {"error": error, "reason": reason, **extra}
