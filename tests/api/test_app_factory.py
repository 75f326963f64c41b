"""create_app() is run again for every page test: rebuilding must not nest anything."""

from __future__ import annotations

from nicegui import app
from nicegui.testing import User

from app.web import create_app


async def test_rebuilding_the_app_keeps_one_lifespan(user: User) -> None:
    before = app.router.lifespan_context
    for route in [r for r in app.routes if getattr(r, "path", "").startswith("/api/")]:
        app.routes.remove(route)  # what the test plugin does between tests
    create_app()
    assert app.router.lifespan_context is before
    assert (await user.http_client.get("/api/health")).status_code == 200
