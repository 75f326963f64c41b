"""Faults between the tools and Superset: a proxy that answers 502 once, one that hangs,
and a Superset that is not there at all. Reads retry once; writes never do."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from app.agent.execution import execute_with_timeout, retry_read_tool
from app.errors import SupersetUnavailableError, ToolTimeoutError
from app.parts import Parts
from app.sandbox import Sandbox
from app.sandbox.processes import free_port
from app.superset.environments import Environment
from app.superset.registry import EnvironmentRegistry
from app.tools import TOOLS
from app.tools.catalog import TOOL_CATALOG
from app.tools.kit import ToolDeps
from tests.waiting import WAIT_S

pytestmark = pytest.mark.superset

Rule = Callable[[str, str], bool]  # (method, path) -> does this request get the fault?


@dataclass
class FaultProxy:
    """A one-request-per-connection HTTP proxy on 127.0.0.1 in front of ``upstream``.

    The first request matching ``fail`` is answered 502 without reaching Superset; every
    request matching ``hang`` is held forever. Everything else is forwarded."""

    upstream_port: int
    fail: Rule | None = None
    hang: Rule | None = None
    seen: list[str] = field(default_factory=list)
    port: int = 0
    _server: asyncio.Server | None = None
    _handlers: set[asyncio.Task[Any]] = field(default_factory=set)

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        assert self._server is not None
        self._server.close()
        for task in self._handlers:
            task.cancel()  # e.g. a request held by ``hang``
        await asyncio.gather(*self._handlers, return_exceptions=True)
        await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            await self._serve(reader, writer)
        finally:
            self._handlers.discard(task)
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            return  # the client went away before sending a request
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        path = target.split("?", 1)[0]
        headers = [h for h in lines[1:] if h and not h.lower().startswith("connection:")]
        length = next((int(h.split(":", 1)[1]) for h in headers
                       if h.lower().startswith("content-length:")), 0)  # fmt: skip
        body = await reader.readexactly(length) if length else b""
        self.seen.append(f"{method} {path}")
        if self.hang and self.hang(method, path):
            await asyncio.sleep(3600)
        if self.fail and self.fail(method, path):
            self.fail = None  # only the first matching request fails
            writer.write(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 11\r\n"
                         b"Connection: close\r\n\r\nbad gateway")  # fmt: skip
        else:
            up_r, up_w = await asyncio.open_connection("127.0.0.1", self.upstream_port)
            request = "\r\n".join([lines[0], *headers, "Connection: close", "", ""])
            up_w.write(request.encode("latin-1") + body)
            await up_w.drain()
            writer.write(await up_r.read())
            up_w.close()
        await writer.drain()


def _env_through(sandbox: Sandbox, port: int, env_id: str = "dev") -> Environment:
    real = sandbox.env(env_id)
    return Environment(
        id=env_id,
        url=f"http://127.0.0.1:{port}",
        username=real.username,
        password=real.password,
        tier=real.tier,
        timeout=20.0,
    )


@pytest.fixture
async def proxy(superset_sandbox: Sandbox) -> AsyncIterator[FaultProxy]:
    p = FaultProxy(upstream_port=superset_sandbox.env("dev").port)
    await p.start()
    yield p
    await p.stop()


@pytest.fixture
async def proxied(proxy: FaultProxy, superset_sandbox: Sandbox) -> AsyncIterator[Any]:
    """Environments whose dev goes through ``proxy`` (closed after the test)."""
    registry = EnvironmentRegistry([_env_through(superset_sandbox, proxy.port)])
    yield registry
    await registry.aclose()


def _on(method: str, path: str) -> Rule:
    """A proxy rule for one request: ``method`` on ``path``."""
    return lambda m, p: (m, p) == (method, path)


def _deps(parts: Parts, registry: EnvironmentRegistry) -> ToolDeps:
    """A call's dependencies on the test's parts, on dev of ``registry``."""
    return ToolDeps(
        parts.settings, "alice", "admin", "c1", "dev", registry, db=parts.db, tasks=parts.tasks
    )


async def _call_with_retry(name: str, deps: ToolDeps, retries: list[Any], **args: Any) -> Any:
    spec = TOOL_CATALOG[name]
    return await retry_read_tool(
        TOOLS[name].fn,
        spec.args_model(**args),
        deps,
        read_only=spec.read_only,
        delay_s=0.01,
        on_retry=lambda attempt, err: retries.append((attempt, err)),
    )


async def test_read_tool_retries_once_after_a_502_and_succeeds(
    proxy: FaultProxy, proxied: EnvironmentRegistry, parts: Parts
) -> None:
    proxy.fail = _on("GET", "/api/v1/dashboard/")
    retries: list[Any] = []
    out = await _call_with_retry("search_dashboards", _deps(parts, proxied), retries, query="Sales")
    assert [d["title"] for d in out["dashboards"]] == ["Sales Overview"]
    assert len(retries) == 1 and isinstance(retries[0][1], SupersetUnavailableError)
    assert retries[0][1].status_code == 502
    assert proxy.seen.count("GET /api/v1/dashboard/") == 2  # the failed call and its retry


async def test_write_tool_is_not_retried_after_a_502(
    proxy: FaultProxy, proxied: EnvironmentRegistry, superset_sandbox: Sandbox, parts: Parts
) -> None:
    proxy.fail = _on("POST", "/api/v1/dataset/")
    retries: list[Any] = []
    name = f"never_{uuid.uuid4().hex[:8]}"
    with pytest.raises(SupersetUnavailableError) as info:
        await _call_with_retry(
            "superset_create_dataset", _deps(parts, proxied), retries,
            database="Sales", table_name=name, sql="select 1 as x",
        )  # fmt: skip
    assert retries == [] and not info.value.retry_exhausted
    assert proxy.seen.count("POST /api/v1/dataset/") == 1  # sent once, never again
    direct = EnvironmentRegistry([_env_through(superset_sandbox, superset_sandbox.env("dev").port)])
    assert await direct.client("dev").find_datasets(name) == []  # it never reached Superset
    await direct.aclose()


_free_port = free_port


async def test_superset_not_running_is_a_clear_error_quickly(parts: Parts) -> None:
    env = Environment(  # a long HTTP timeout: an answer within WAIT_S was never a timeout
        id="dev", url=f"http://127.0.0.1:{_free_port()}", password="x", tier="dev", timeout=600
    )
    registry = EnvironmentRegistry([env])
    retries: list[Any] = []
    started = time.monotonic()
    with pytest.raises(SupersetUnavailableError) as info:
        await _call_with_retry("search_dashboards", _deps(parts, registry), retries)
    elapsed = time.monotonic() - started
    await registry.aclose()
    assert "Superset 'dev' at http://127.0.0.1:" in info.value.message
    assert "unreachable (ConnectError)" in info.value.message
    assert info.value.retry_exhausted and len(retries) == 1
    assert elapsed < WAIT_S  # refused at once, not waited out (a hang's bound, not speed)


async def test_hanging_write_times_out_with_status_unknown(
    proxy: FaultProxy, proxied: EnvironmentRegistry, make_parts: Any
) -> None:
    parts = make_parts(tool_timeout_s=1)  # the 30 s default, shortened
    proxy.hang = _on("POST", "/api/v1/dataset/")
    spec = TOOL_CATALOG["superset_create_dataset"]
    args = spec.args_model(database="Sales", table_name="hang_x", sql="select 1")
    started = time.monotonic()
    with pytest.raises(ToolTimeoutError) as info:
        await execute_with_timeout(
            lambda: TOOLS[spec.name].fn(args, _deps(parts, proxied)),
            is_write=True,
            timeout_s=parts.settings.tool_timeout_s,
        )
    assert time.monotonic() - started < WAIT_S  # the tool's 1 s, not the proxy's hour
    assert info.value.details.get("status_unknown") is True
    assert info.value.details.get("retryable") is False
