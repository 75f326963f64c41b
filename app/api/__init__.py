"""HTTP API (JSON and SSE) on NiceGUI's FastAPI app. Each module exports ``router``."""

from __future__ import annotations

from fastapi import APIRouter


def routers() -> list[APIRouter]:
    from app.api import health, tools

    out = [health.router, tools.router]
    try:  # later issues add these modules
        from app.api import agent, auth

        out += [auth.router, agent.router]
    except ImportError:
        pass
    return out
