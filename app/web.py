"""App factory (the composition root): the parts, then the doors on NiceGUI's FastAPI app —
HTTP API routers, the MCP door and the pages.

``create_app()`` builds the parts once (``app.parts.build_parts``: settings, database,
registry, rules, audit writer, task runner, auth gate, agent core) — or takes the ones it
is given — and installs them as ``app.state.parts``, where every door finds them. It is
called by main.py (and again by the NiceGUI user plugin for every test, which runs
main.py afresh), so everything here is idempotent; parts installed by an earlier call are
replaced and closed.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from nicegui import app

from app.api import agent_routes, approvals, auth, health, superset_accounts, tools
from app.api.middleware import install_http_guards
from app.mcp import mount_mcp
from app.mcp.core_gateway import CoreGateway
from app.page_storage import private_page_storage
from app.pages import PAGE_MODULES
from app.parts import PARTS_STATE, Parts, build_parts
from app.settings import Settings
from app.tasks.worker import recover_interrupted

if TYPE_CHECKING:
    from app.mcp import ToolGateway

_ROUTERS_TAG = "_ss_tools_routers"


def create_app(
    parts: Parts | None = None,
    *,
    settings: Settings | None = None,
    mcp_gateway: ToolGateway | None = None,
) -> Parts:
    """Build the parts once (from ``settings``, default ``Settings()``) unless ``parts``
    are given, install them and mount the doors; returns the installed parts.
    ``mcp_gateway`` replaces the MCP door's gateway over the core (tests only)."""
    if parts is None:
        settings = settings if settings is not None else Settings()
        settings.check_secrets()  # before anything is opened with a placeholder secret
        parts = build_parts(settings)
    else:
        parts.settings.check_secrets()
    settings = parts.settings
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    private_page_storage(settings.data_dir)
    # Tasks a previous process left queued/running become 'interrupted', never re-run.
    recover_interrupted(parts.db)
    previous = getattr(app.state, PARTS_STATE, None)
    setattr(app.state, PARTS_STATE, parts)
    if isinstance(previous, Parts) and previous is not parts:
        previous.close()  # its core's checkpointer threads, its audit thread, its engine

    if not getattr(app.state, _ROUTERS_TAG, False) or not _has_api_routes():
        # FastAPI's include_router nests the app's lifespan inside a merged one on every
        # call; the NiceGUI test plugin rebuilds the app per test, so after ~115 tests the
        # start-up ran ~900 frames deep (RecursionError). Our routers have no lifespan.
        lifespan = app.router.lifespan_context
        for module in (health, tools, auth, agent_routes, superset_accounts, approvals):
            app.include_router(module.router)
        app.router.lifespan_context = lifespan
        setattr(app.state, _ROUTERS_TAG, True)

    install_http_guards(
        app,
        max_body_bytes=settings.max_body_bytes,
        frame_ancestors=settings.frame_ancestors,
    )
    mount_mcp(app, mcp_gateway or CoreGateway(parts.core), auth=parts.auth, settings=settings)
    for page_module in PAGE_MODULES:  # each registers its @ui.page function (import_module:
        importlib.import_module(page_module)  # app.pages itself registers nothing)
    return parts


def _has_api_routes() -> bool:
    return any(getattr(r, "path", "").startswith("/api/") for r in app.routes)
