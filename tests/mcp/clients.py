"""Connecting the SDK's own client (``mcp.client.streamable_http``) to a product subprocess,
and a wire log of what that client sent and received (for the transcript).

:class:`WireLog` is an httpx transport around the real one: it records each request's
JSON-RPC body and each response's JSON-RPC messages (plain JSON, or the ``data:`` lines of
an SSE stream, as they arrive), in the order the client saw them. It never records a
header, so no token lands in a log.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx2
import mcp_types as types
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.server_proc import Server

ERAS = ("legacy", "2026-07-28")  # the initialize handshake (2025-11-25) and the 2026 envelope


@dataclass
class Exchange:
    at: float
    direction: str  # "->" (client to server) or "<-"
    summary: str  # e.g. "POST /mcp" or "200 text/event-stream"
    message: Any = None  # one JSON-RPC message, when there is one


@dataclass
class WireLog(httpx2.AsyncBaseTransport):
    inner: httpx2.AsyncBaseTransport = field(default_factory=httpx2.AsyncHTTPTransport)
    entries: list[Exchange] = field(default_factory=list)

    def _add(self, direction: str, summary: str, message: Any = None) -> None:
        self.entries.append(Exchange(time.monotonic(), direction, summary, message))

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = request.content
        message = json.loads(body) if body else None
        self._add("->", f"{request.method} {request.url.path}", message)
        response = await self.inner.handle_async_request(request)
        kind = response.headers.get("content-type", "").split(";")[0]
        self._add(
            "<-", f"{response.status_code} {kind}".strip() + f" (to {_what(request, message)})"
        )
        response.stream = _Tee(response.stream, self, sse=kind == "text/event-stream")
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def _what(request: httpx2.Request, message: Any) -> str:
    if isinstance(message, dict) and "method" in message:
        return message["method"] + (f" #{message['id']}" if "id" in message else "")
    if isinstance(message, dict) and "id" in message:
        return f"the answer to #{message['id']}"
    return f"{request.method}: the session's {'event stream' if request.method == 'GET' else 'end'}"


class _Tee(httpx2.AsyncByteStream):
    """Passes a response body through, recording its JSON-RPC messages as they arrive."""

    def __init__(self, stream: Any, log: WireLog, *, sse: bool) -> None:
        self.stream, self.log, self.sse = stream, log, sse
        self.buffer = ""

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.stream:
            self._feed(chunk.decode("utf-8", "replace"))
            yield chunk
        if not self.sse and self.buffer.strip():
            self._record(self.buffer)

    def _feed(self, text: str) -> None:
        self.buffer = (self.buffer + text).replace("\r\n", "\n")  # SSE lines end in CRLF
        if not self.sse:
            return
        while "\n\n" in self.buffer:
            frame, self.buffer = self.buffer.split("\n\n", 1)
            data = "\n".join(ln[5:].lstrip() for ln in frame.splitlines() if ln.startswith("data:"))
            if data:
                self._record(data)

    def _record(self, data: str) -> None:
        try:
            self.log._add("<-", "message", json.loads(data))
        except ValueError:
            self.log._add("<-", "text", data)

    async def aclose(self) -> None:
        await self.stream.aclose()


@dataclass
class McpEndpoint:
    """A product subprocess with its ``/mcp`` door and a token per user."""

    server: Server
    tokens: dict[str, str]

    @property
    def url(self) -> str:
        return self.server.url + "/mcp"

    @asynccontextmanager
    async def client(
        self,
        user: str,
        *,
        mode: str = "legacy",
        elicit: Any = None,  # an ElicitationFnT, or None: no elicitation capability
        name: str = "pytest-mcp",
        wire: WireLog | None = None,
    ) -> AsyncIterator[Client]:
        headers = {"Authorization": f"Bearer {self.tokens[user]}"}
        timeout = httpx2.Timeout(30, read=120)
        async with httpx2.AsyncClient(headers=headers, timeout=timeout, transport=wire) as hc:
            transport = streamable_http_client(self.url, http_client=hc)
            async with Client(
                transport,
                mode=mode,
                elicitation_callback=elicit,
                client_info=types.Implementation(name=name, version="1.0"),
                cache=None,
            ) as client:
                yield client
