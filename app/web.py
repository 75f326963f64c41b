"""App factory (the composition root): database, the agent core, HTTP API routers, the
MCP door and pages on NiceGUI's FastAPI app.

``create_app()`` is called by main.py (and again by the NiceGUI user plugin for every
test, which runs main.py afresh), so everything here is idempotent. It builds the one
``AgentCore`` (chat model, checkpointer pool, graph per event loop) and installs it for the
doors (``app.agent.core.get_core``); a core built by an earlier call is replaced.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from nicegui import app

from app.agent.core import AgentCore, install_core
from app.agent.llm import get_chat_model
from app.api.middleware import install_http_guards
from app.mcp import mount_mcp
from app.mcp.core_gateway import CoreGateway
from app.page_storage import private_page_storage
from app.pages import PAGE_MODULES
from app.settings import Settings, get_settings
from app.store.db import get_engine, init_db

if TYPE_CHECKING:
    from app.mcp import ToolGateway

_ROUTERS_TAG = "_ss_tools_routers"


def build_core(settings: Settings) -> AgentCore:
    """The product's agent core: the configured chat model, checkpoints in the data dir
    (or PostgreSQL), the product's tools."""
    return AgentCore(model=get_chat_model(settings))


def create_app(*, mcp_gateway: ToolGateway | None = None) -> AgentCore:
    """Build the parts once and mount the doors; returns the installed agent core.
    ``mcp_gateway`` replaces the MCP door's gateway over that core (tests only)."""
    settings = get_settings()
    settings.check_secrets()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    private_page_storage(settings.data_dir)
    init_db(get_engine())
    core = build_core(settings)
    install_core(core)
    # Tasks a previous process left queued/running become 'interrupted', never re-run.
    from app.tasks.worker import recover_interrupted

    recover_interrupted()

    if not getattr(app.state, _ROUTERS_TAG, False) or not _has_api_routes():
        from app.api import routers

        # FastAPI's include_router nests the app's lifespan inside a merged one on every
        # call; the NiceGUI test plugin rebuilds the app per test, so after ~115 tests the
        # start-up ran ~900 frames deep (RecursionError). Our routers have no lifespan.
        lifespan = app.router.lifespan_context
        for router in routers():
            app.include_router(router)
        app.router.lifespan_context = lifespan
        setattr(app.state, _ROUTERS_TAG, True)

    install_http_guards(
        app,
        max_body_bytes=settings.max_body_bytes,
        frame_ancestors=settings.frame_ancestors,
    )
    mount_mcp(app, mcp_gateway or CoreGateway(core))
    for module in PAGE_MODULES:  # each registers its @ui.page function
        importlib.import_module(module)
    return core


def _has_api_routes() -> bool:
    return any(getattr(r, "path", "").startswith("/api/") for r in app.routes)
