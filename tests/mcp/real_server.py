"""The product as it ships (``python main.py``: the real agent core behind ``/mcp``) on the
real Superset sandbox (dev + prod), for the end-to-end tests of the MCP door.

The dangerous countdown is shortened (``SS_TOOLS_DANGEROUS_COUNTDOWN_S``, which both the
card and the server's gate read) to keep the "accepted too early" test fast. Audit rows
are read straight from the server's database (the rows every door writes).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from app.events import decode_sse
from app.store.audit_log import list_audit
from app.store.db import make_engine
from tests.mcp.clients import McpEndpoint
from tests.server_proc import Server, add_user, server_env

PASSWORD = "s3cret-pass"
REAL_COUNTDOWN_S = 2

__all__ = ["PASSWORD", "REAL_COUNTDOWN_S", "RealMcpServer", "real_mcp"]


@dataclass
class RealMcpServer(McpEndpoint):
    engine: Engine | None = None

    def audit(self, **filters: Any) -> list[dict[str, Any]]:
        """Audit rows (oldest first) matching ``filters`` (conv_id, kind, user, ...)."""
        assert self.engine is not None
        with Session(self.engine) as s:
            rows = [r.model_dump() for r in list_audit(s, limit=1000, **filters)]
        return rows[::-1]

    def resume(self, user: str, **body: Any) -> tuple[int, list[dict[str, Any]]]:
        """``POST /api/agent/resume`` (the HTTP API): its status and decoded events."""
        r = httpx.post(
            self.server.url + "/api/agent/resume",
            json=body,
            headers={"Authorization": f"Bearer {self.tokens[user]}"},
            timeout=120,
        )
        ok = r.headers.get("content-type", "").startswith("text/event-stream")
        return r.status_code, decode_sse(r.text) if ok else [r.json()]

    def tools_api(self, user: str) -> list[str]:
        """``GET /api/agent/tools`` for this user's token."""
        r = self.server.get("/api/agent/tools", self.tokens[user])
        r.raise_for_status()
        return list(r.json()["tools"])


@pytest.fixture(scope="session")
def real_mcp(
    superset_envs_file: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[RealMcpServer]:
    data = tmp_path_factory.mktemp("mcp-real") / "data"
    data.mkdir()
    env = server_env(
        data,
        SS_TOOLS_ENVIRONMENTS_FILE=str(superset_envs_file),
        SS_TOOLS_DANGEROUS_COUNTDOWN_S=str(REAL_COUNTDOWN_S),
        SS_TOOLS_PUBLIC_BASE_URL="https://agent.example.test",
    )
    add_user(env, "ana", "analyst", PASSWORD)
    add_user(env, "ops", "admin", PASSWORD)
    engine = make_engine(f"sqlite:///{(data / 'ss_tools.db').resolve()}")
    try:
        with Server(env) as server:
            tokens = {u: server.token(u, PASSWORD) for u in ("ana", "ops")}
            yield RealMcpServer(server, tokens, engine)
    finally:
        engine.dispose()
