"""One product subprocess per test session with its MCP door on the fake gateway
(``tests.mcp.serve_fake``), two users (analyst ``ana``, admin ``ops``), and helpers to
connect the SDK's own client (``mcp.client.streamable_http``) to it."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.server_proc import Server, cli, server_env

PASSWORD = "s3cret-pass"
COUNTDOWN_S = 2.0
ERAS = ("legacy", "2026-07-28")  # the initialize handshake (2025-11-25) and the 2026 envelope


@dataclass
class FakeMcpServer:
    server: Server
    log_path: Path
    tokens: dict[str, str]

    @property
    def url(self) -> str:
        return self.server.url + "/mcp"

    def log(self, since: int = 0) -> list[dict[str, Any]]:
        lines = self.log_path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines[since:]]

    def mark(self) -> int:
        return len(self.log_path.read_text(encoding="utf-8").splitlines())

    @asynccontextmanager
    async def client(
        self,
        user: str,
        *,
        mode: str = "legacy",
        elicit: Any = None,  # an ElicitationFnT, or None: no elicitation capability
        name: str = "pytest-mcp",
    ) -> AsyncIterator[Client]:
        headers = {"Authorization": f"Bearer {self.tokens[user]}"}
        async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=60)) as hc:
            transport = streamable_http_client(self.url, http_client=hc)
            async with Client(
                transport,
                mode=mode,
                elicitation_callback=elicit,
                client_info=types.Implementation(name=name, version="1.0"),
                cache=None,
            ) as client:
                yield client


@pytest.fixture(scope="session")
def mcp_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FakeMcpServer]:
    data = tmp_path_factory.mktemp("mcp") / "data"
    data.mkdir()
    log_path = data / "gateway.log"
    log_path.touch()
    env = server_env(
        data,
        SS_TOOLS_TEST_MCP_LOG=str(log_path),
        SS_TOOLS_TEST_MCP_COUNTDOWN_S=str(COUNTDOWN_S),
    )
    cli(env, "users", "add", "ana", "--role", "analyst", "--password", PASSWORD)
    cli(env, "users", "add", "ops", "--role", "admin", "--password", PASSWORD)
    with Server(env, argv=("-m", "tests.mcp.serve_fake")) as server:
        tokens = {u: server.token(u, PASSWORD) for u in ("ana", "ops")}
        yield FakeMcpServer(server, log_path, tokens)
