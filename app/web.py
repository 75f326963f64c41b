"""App factory: database, HTTP API routers and pages on NiceGUI's FastAPI app.

``create_app()`` is called by main.py (and again by the NiceGUI user plugin for every
test, which runs main.py afresh), so everything here is idempotent.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from nicegui import app

from app.mcp import mount_mcp
from app.settings import get_settings
from app.store.db import get_engine, init_db

if TYPE_CHECKING:
    from app.mcp import ToolGateway

_ROUTERS_TAG = "_ss_tools_routers"


def create_app(*, mcp_gateway: ToolGateway | None = None) -> None:
    """Build the app. ``mcp_gateway`` is the agent core as the MCP door sees it; without
    one, ``/mcp`` authenticates and then answers 503 (tests hand in their own)."""
    settings = get_settings()
    settings.check_secrets()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    init_db(get_engine())
    # Tasks a previous process left queued/running become 'interrupted', never re-run.
    from app.tasks.worker import recover_interrupted

    recover_interrupted()

    if not getattr(app.state, _ROUTERS_TAG, False) or not _has_api_routes():
        from app.api import routers

        for router in routers():
            app.include_router(router)
        setattr(app.state, _ROUTERS_TAG, True)

    mount_mcp(app, mcp_gateway)
    importlib.import_module("app.pages")  # registers the @ui.page functions


def _has_api_routes() -> bool:
    return any(getattr(r, "path", "").startswith("/api/") for r in app.routes)
