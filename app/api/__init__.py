"""HTTP API (JSON and SSE) on NiceGUI's FastAPI app. Each module exports ``router``."""

from __future__ import annotations

from fastapi import APIRouter


def routers() -> list[APIRouter]:
    from app.api import agent, auth, health, tools

    return [health.router, tools.router, auth.router, agent.router]
