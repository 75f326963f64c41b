"""``GET /api/health``: liveness plus the database check (503 when the database is down)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app import __version__
from app.api.deps import db_of

router = APIRouter(tags=["health"])


@router.get("/api/health")
def health(request: Request) -> JSONResponse:
    """``{"status": "ok"|"degraded", "version", "database": {"ok", "dialect", "error"?}}``."""
    database = db_of(request).status()
    ok = bool(database.get("ok"))
    body = {"status": "ok" if ok else "degraded", "version": __version__, "database": database}
    return JSONResponse(body, status_code=200 if ok else 503)
