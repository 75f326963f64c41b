"""App factory: database, HTTP API routers and pages on NiceGUI's FastAPI app.

``create_app()`` is called by main.py (and again by the NiceGUI user plugin for every
test, which runs main.py afresh), so everything here is idempotent.
"""

from __future__ import annotations

import importlib

from nicegui import app

from app.api.middleware import install_http_guards
from app.page_storage import private_page_storage
from app.settings import get_settings
from app.store.db import get_engine, init_db

_ROUTERS_TAG = "_ss_tools_routers"


def create_app() -> None:
    settings = get_settings()
    settings.check_secrets()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    private_page_storage(settings.data_dir)
    init_db(get_engine())
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
    importlib.import_module("app.pages")  # registers the @ui.page functions


def _has_api_routes() -> bool:
    return any(getattr(r, "path", "").startswith("/api/") for r in app.routes)
