"""Refusals of a turn's or a resume's input, and how each door shows them.

A :class:`RequestRefused` is raised by ``prepare_turn`` / ``prepare_resume`` (and by the
core for a foreign conversation) once its audit row is committed. The SSE door turns it
into ``error`` + ``done`` events (:meth:`RequestRefused.event`); the HTTP door into the
README's ``{"error", "reason"}`` JSON with the status (:meth:`RequestRefused.http`).

:data:`CONFIRMATION_STATUS` is the one table from a ``ConfirmationError`` reason to an HTTP
status, used by both doors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.errors import ConfirmationError, SsToolsError
from app.events import ErrorEvent

#: The reason of a 403 for another user's conversation (a turn, a call, a read, a stop).
FOREIGN = "this conversation belongs to another user"

CONFIRMATION_STATUS: Mapping[str, int] = {
    "unknown": 404,
    "foreign_user": 403,
    "not_pending": 409,
    "replayed": 409,
    "expired": 410,
    "too_early": 425,
    "mismatch": 409,
}


def confirmation_status(reason: str) -> int:
    """The HTTP status of a refused confirmation (400 for a reason the table lacks)."""
    return CONFIRMATION_STATUS.get(reason, 400)


class RequestRefused(SsToolsError):
    """A refused request: ``status`` (4xx), ``error`` (a stable code) and ``reason`` (a
    sentence for a person, never the input echoed back). Already audited when raised."""

    def __init__(
        self,
        status: int,
        error: str,
        reason: str,
        *,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(reason)
        self.status = status
        self.error = error
        self.reason = reason
        self.headers = dict(headers or {})

    def event(self) -> ErrorEvent:
        """The ``error`` event of the SSE door (a ``done`` follows it)."""
        return ErrorEvent(code=self.error, message=self.reason, status_code=self.status)

    def http(self) -> tuple[int, str, str, dict[str, Any]]:
        """``(status, error, reason, extra fields)`` of the HTTP door's JSON answer."""
        return self.status, self.error, self.reason, {}


class ConfirmationRefused(RequestRefused):
    """A refused confirmation. The stream says ``confirmation_<code>``; the HTTP API answers
    ``{"error": "confirmation_refused", "reason": <code>, "message": <sentence>}``."""

    def __init__(self, exc: ConfirmationError) -> None:
        super().__init__(confirmation_status(exc.reason), f"confirmation_{exc.reason}", str(exc))
        self.code = exc.reason

    def http(self) -> tuple[int, str, str, dict[str, Any]]:
        return self.status, "confirmation_refused", self.code, {"message": self.reason}
