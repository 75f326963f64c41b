"""Load benchmark (the first event must come quickly under load): a real server subprocess; N
concurrent conversations (N = 50, 200) each asking "what can you do?" (show_capabilities: a
real tool that needs no Superset). Time to the first SSE event p50/p95 against the HTTP
floor (``GET /api/health`` at the same concurrency, same client, same run), errors, audit
rows written vs expected.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
import uuid
from pathlib import Path

from sqlmodel import Session

from app.store.audit_log import count_audit
from app.store.db import make_engine
from bench.agent_bench import pct
from tests.server_proc import Server, cli, server_env

#: N conversations stand for N people here, all signed in as one bench account: its
#: per-user limits (docs/limits-and-identities.md) are off, or it would measure 429s.
UNLIMITED = {
    "SS_TOOLS_USER_TURNS_PER_MINUTE": "0",
    "SS_TOOLS_USER_CALLS_PER_MINUTE": "0",
    "SS_TOOLS_USER_MAX_RUNNING": "0",
}


class RawClient:
    """A minimal HTTP/1.1 client on raw asyncio sockets (one connection per request).
    httpx itself costs more than the server at 200 concurrent streams on 2 cores (its
    p95 for a trivial GET was ~2.4x the raw one here), so the load run uses this."""

    def __init__(self, port: int) -> None:
        self.port = port

    async def request(
        self, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        lines = [
            f"{method} {path} HTTP/1.1",
            "Host: 127.0.0.1",
            "Connection: close",
            f"Content-Length: {len(body)}",
        ]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        await writer.drain()
        return reader, writer


async def _one_conversation(
    client: RawClient, token: str
) -> tuple[float | None, bool, float | None]:
    """(ms to the first event, finished with ``done``, ms to the first agent output —
    the first event after ``turn_start``)."""
    t0 = time.perf_counter()
    first: float | None = None
    first_output: float | None = None
    ok = False
    body = json.dumps({"message": "what can you do?", "conv_id": uuid.uuid4().hex}).encode()
    try:
        reader, writer = await client.request(
            "POST",
            "/api/agent/stream",
            body,
            {"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        status = await reader.readline()
        if b" 200 " not in status:
            writer.close()
            return None, False, None
        async for raw in reader:
            line = raw.decode("utf-8", "replace")
            if line.startswith("event:"):
                if first is None:
                    first = (time.perf_counter() - t0) * 1000
                if first_output is None and not line.startswith("event: turn_start"):
                    first_output = (time.perf_counter() - t0) * 1000
                if line.startswith("event: done"):
                    ok = True
        writer.close()
    except (OSError, asyncio.IncompleteReadError):
        return first, False, first_output
    return first, ok, first_output


async def _http_floor(client: RawClient, n: int) -> list[float]:
    """N concurrent trivial requests: what the HTTP stack alone costs at this concurrency."""

    async def one() -> float:
        t0 = time.perf_counter()
        reader, writer = await client.request("GET", "/api/health")
        await reader.readuntil(b"\r\n\r\n")
        writer.close()
        return (time.perf_counter() - t0) * 1000

    return list(await asyncio.gather(*[one() for _ in range(n)]))


def _audit_count(db_url: str) -> int:
    engine = make_engine(db_url)
    with Session(engine) as s:
        n = count_audit(s)
    engine.dispose()
    return int(n)


async def load(levels: tuple[int, ...] = (50, 200)) -> dict[str, float]:
    out: dict[str, float] = {}
    data = Path(tempfile.mkdtemp(prefix="bench-load-"))
    env = server_env(data, **UNLIMITED)
    cli(env, "users", "add", "bench", "--role", "admin", "--password", "bench-password-1")
    db_url = f"sqlite:///{(data / 'ss_tools.db').resolve()}"
    with Server(env) as server:
        token = server.token("bench", "bench-password-1")
        client = RawClient(server.port)
        before = _audit_count(db_url)
        await _one_conversation(client, token)  # warm-up, and rows per turn
        per_turn = _audit_count(db_url) - before
        for n in levels:
            floor = await _http_floor(client, n)
            print(
                f"[load] N={n}: HTTP floor (GET /api/health, same server and client) "
                f"p50={pct(floor, 50):.1f} ms p95={pct(floor, 95):.1f} ms"
            )
            out[f"p95_http_floor_ms_{n}"] = round(pct(floor, 95), 1)
            before = _audit_count(db_url)
            results = await asyncio.gather(*[_one_conversation(client, token) for _ in range(n)])
            firsts = [f for f, _, _ in results if f is not None]
            outputs = [o for _, _, o in results if o is not None]
            errors = sum(1 for _, ok, _ in results if not ok)
            await asyncio.sleep(0.5)  # let the last audit rows land
            written = _audit_count(db_url) - before
            lost = n * per_turn - written
            print(
                f"[load] N={n}: first event p50={pct(firsts, 50):.1f} ms "
                f"p95={pct(firsts, 95):.1f} ms; first agent output p50="
                f"{pct(outputs, 50):.1f} ms p95={pct(outputs, 95):.1f} ms; "
                f"errors={errors}, audit rows {written}/{n * per_turn} (lost {lost})"
            )
            out[f"p95_first_event_ms_{n}"] = round(pct(firsts, 95), 1)
            out[f"p95_first_output_ms_{n}"] = round(pct(outputs, 95), 1)
            out[f"errors_{n}"] = errors
            out[f"audit_rows_lost_{n}"] = lost
    return out
