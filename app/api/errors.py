"""The one error shape of the HTTP API: ``{"error": <code>, "reason": <text>}`` with a 4xx.

Every refusal of every route (401, 403, 404, 409, 410, 413, 422, 425, 429) is built here,
so a client reads one shape. ``reason`` is a sentence for a person; it never echoes the
request body back.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi.responses import JSONResponse


def error_response(
    status: int,
    error: str,
    reason: str,
    *,
    headers: Mapping[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    """A JSON refusal: ``{"error", "reason", **extra}`` with ``status``."""
    return JSONResponse(
        {"error": error, "reason": reason, **extra},
        status_code=status,
        headers=dict(headers or {}),
    )
