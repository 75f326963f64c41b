"""``GET /api/health``: liveness plus the database check (503 when the database is down),
for a load balancer's health checks. ``replica`` is this process's random tag
(``app.replica.replica_tag``, new at every start): behind a balancer it tells the
replicas apart, and a rolling restart shows as a new tag."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from app import __version__
from app.api.deps import db_of
from app.replica import replica_tag

router = APIRouter(tags=["health"])


@router.get("/api/health")
def health(request: Request) -> JSONResponse:
    """``{"status": "ok"|"degraded", "version", "replica", "database": {"ok", "dialect",
    "error"?}}``."""
    database = db_of(request).status()
    ok = bool(database.get("ok"))
    body = {
        "status": "ok" if ok else "degraded",
        "version": __version__,
        "replica": replica_tag(),
        "database": database,
    }
    return JSONResponse(body, status_code=200 if ok else 503)
