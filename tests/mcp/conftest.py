"""The MCP door's test servers, each a product subprocess with two users (analyst ``ana``,
admin ``ops``) that the SDK's own client connects to (``tests.mcp.clients``):

* ``mcp_server`` — the door on the fake gateway (``tests.mcp.serve_fake``): the door's own
  behaviour, both protocol eras, with a decision log;
* ``real_mcp`` — the product as it ships (``main.py``: the real core) on the Superset
  sandbox (``tests.mcp.real_server``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.mcp.clients import ERAS, McpEndpoint
from tests.mcp.real_server import PASSWORD, real_mcp
from tests.server_proc import Server, add_user, server_env

COUNTDOWN_S = 2.0

__all__ = ["COUNTDOWN_S", "ERAS", "FakeMcpServer", "mcp_server", "mode", "real_mcp"]


@dataclass
class FakeMcpServer(McpEndpoint):
    log_path: Path = Path()

    def log(self, since: int = 0) -> list[dict[str, Any]]:
        lines = self.log_path.read_text(encoding="utf-8").splitlines()
        return [json.loads(line) for line in lines[since:]]

    def mark(self) -> int:
        return len(self.log_path.read_text(encoding="utf-8").splitlines())


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
    add_user(env, "ana", "analyst", PASSWORD)
    add_user(env, "ops", "admin", PASSWORD)
    with Server(env, argv=("-m", "tests.mcp.serve_fake")) as server:
        tokens = {u: server.token(u, PASSWORD) for u in ("ana", "ops")}
        yield FakeMcpServer(server, tokens, log_path)


@pytest.fixture(params=ERAS)
def mode(request: pytest.FixtureRequest) -> str:
    """The protocol era a client speaks: a test that takes it runs once in each."""
    return str(request.param)
