"""The ``/mcp`` door on the product's app: bearer auth, then the SDK's Streamable HTTP.

Every HTTP request to ``/mcp`` (POST, the GET stream, DELETE) first passes the HTTP API's
own bearer check (:func:`app.auth.request_auth.request_principal_async` with the app's auth gate:
the same JWTs, the same ``auth_failed`` audit row). No token or a bad one is a plain HTTP 401
``{"error": "unauthorized", "reason": ...}`` before any MCP handling. The verified
principal rides on the request (handlers read it per request) and as the ASGI ``user``,
so the SDK binds each MCP session to the user who opened it: another user's token on
that session id gets 404.

The SDK's session manager needs a running task group. NiceGUI runs async startup
handlers as background tasks, so :meth:`McpDoor.start` runs the manager in a task of its
own, and a request that arrives before it is ready waits briefly for it.
:meth:`McpDoor.stop` (a shutdown handler) ends it. A manager runs once, so every start
builds a fresh one (the test harness starts and stops the app once per test).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any

from fastapi import HTTPException
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from app import __version__
from app.auth import AuthGate, Principal
from app.auth.request_auth import request_principal_async
from app.errors import error_shape
from app.mcp.caller import PRINCIPAL_STATE
from app.mcp.gateway import ToolGateway
from app.mcp.server import build_server
from app.settings import Settings

if TYPE_CHECKING:
    from nicegui.app import App

log = logging.getLogger("ss_tools.mcp")

MCP_PATH = "/mcp"
DOOR_STATE = "_ss_tools_mcp_door"
READY_WAIT_S = 10.0
STOP_WAIT_S = 10.0

__all__ = ["MCP_PATH", "McpDoor", "mount_mcp"]


async def _authenticate(auth: AuthGate, scope: Scope, receive: Receive) -> Principal | Any:
    """The verified caller, or the 401 response to send."""
    try:
        return await request_principal_async(auth, Request(scope, receive))
    except HTTPException as exc:
        detail: dict[str, Any] = exc.detail if isinstance(exc.detail, dict) else {}
        body = error_shape(
            str(detail.get("error", "unauthorized")),
            str(detail.get("reason", "authentication required")),
        )
        return JSONResponse(body, status_code=exc.status_code, headers=dict(exc.headers or {}))


def _as_user(principal: Principal) -> AuthenticatedUser:
    """The principal as the SDK's session owner (never the raw token)."""
    return AuthenticatedUser(
        AccessToken(
            token="verified",
            client_id=principal.user_id,
            scopes=[],
            subject=principal.user_id,
            claims={"iss": principal.source},
        )
    )


class McpDoor:
    """The ASGI app mounted at ``/mcp``: the gateway onto the core, the app's auth gate and
    settings (``mount_mcp`` hands in the newest ones)."""

    def __init__(self, gateway: ToolGateway, *, auth: AuthGate, settings: Settings) -> None:
        self.gateway = gateway
        self.auth = auth
        self.settings = settings
        self.server = build_server(self._gateway, settings=self._settings, version=__version__)
        self._manager: StreamableHTTPSessionManager | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready: asyncio.Event | None = None
        self._stop: asyncio.Event | None = None

    def _gateway(self) -> ToolGateway:
        return self.gateway  # read per request: the app factory may hand in a new one

    def _settings(self) -> Settings:
        return self.settings

    @property
    def running(self) -> bool:
        return self._manager is not None

    async def start(self) -> None:
        """Run a fresh session manager in its own task until :meth:`stop`."""
        if self._task is not None and not self._task.done():
            return
        manager = StreamableHTTPSessionManager(app=self.server)
        ready, stop = asyncio.Event(), asyncio.Event()
        self._ready, self._stop = ready, stop

        async def run() -> None:
            try:
                async with manager.run():
                    self._manager = manager
                    ready.set()
                    await stop.wait()
            finally:
                self._manager = None

        self._task = asyncio.create_task(run(), name="mcp-session-manager")
        await self.wait_ready()

    async def wait_ready(self) -> bool:
        """True once the session manager runs (waits up to READY_WAIT_S for a start)."""
        task, ready = self._task, self._ready
        if task is None or ready is None:
            return self.running
        waiter = asyncio.ensure_future(ready.wait())
        try:
            await asyncio.wait(
                {waiter, task}, timeout=READY_WAIT_S, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            waiter.cancel()
        if task.done() and not task.cancelled() and task.exception() is not None:
            log.error("mcp: session manager failed", exc_info=task.exception())
        return self.running

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is None:
            return
        if self._stop is not None:
            self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout=STOP_WAIT_S)
        except TimeoutError:
            log.warning("mcp: session manager did not stop in %s s; cancelling", STOP_WAIT_S)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        principal = await _authenticate(self.auth, scope, receive)
        if not isinstance(principal, Principal):
            await principal(scope, receive, send)
            return
        if not self.running and not await self.wait_ready():
            reason = "the MCP service is not running"
            unavailable = JSONResponse(error_shape("mcp_unavailable", reason), status_code=503)
            await unavailable(scope, receive, send)
            return
        manager = self._manager
        assert manager is not None
        scope.setdefault("state", {})[PRINCIPAL_STATE] = principal
        scope["user"] = _as_user(principal)
        await manager.handle_request(scope, receive, send)


def mount_mcp(app: App, gateway: ToolGateway, *, auth: AuthGate, settings: Settings) -> McpDoor:
    """Mount the door once per app (idempotent: the NiceGUI test harness re-runs the app
    factory for every test after clearing routes and lifecycle handlers; the door then
    serves the newest gateway, auth gate and settings)."""
    door = getattr(app.state, DOOR_STATE, None)
    if not isinstance(door, McpDoor):
        door = McpDoor(gateway, auth=auth, settings=settings)
        setattr(app.state, DOOR_STATE, door)
    door.gateway, door.auth, door.settings = gateway, auth, settings
    if not any(getattr(r, "path", None) == MCP_PATH for r in app.router.routes):
        app.router.routes.append(Route(MCP_PATH, endpoint=door))
    if not app.is_started:  # a rebuild of a running app keeps the running door's handlers
        app.on_startup(door.start)
        app.on_shutdown(door.stop)
    return door
