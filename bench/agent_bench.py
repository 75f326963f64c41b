"""Agent benchmarks (issue 3): per-turn server overhead vs a bare LangGraph agent, and a
load run over the HTTP API on loopback.

1. Overhead: the same offline model, the same no-op tool (search_dashboards) and the same
   checkpointer kind (SQLite file), measured side by side in this process: our core
   through agent_handler (auth, pipeline, guard, audit rows, events, SSE encoding), our
   core on the page's in-process path (prepare_turn + run_turn: typed events, no SSE text)
   vs a bare StateGraph(model -> ToolNode -> model). Prints p50/p95 and the ratios of
   medians.
2. Load: a real server subprocess; N concurrent conversations (N = 50, 200) each asking
   "what can you do?" (show_capabilities: a real tool that needs no Superset). Time to the
   first SSE event p50/p95, errors, audit rows written vs expected.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))]


async def _noop_search(args: Any, deps: Any) -> dict[str, Any]:
    return {"count": 1, "dashboards": [{"id": 1, "title": "Sales Overview"}]}


async def overhead(turns: int = 60) -> dict[str, float]:
    from langchain_core.messages import HumanMessage
    from langchain_core.tools import tool
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
    from langgraph.graph import END, START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

    from app.agent.core import prepare_turn
    from app.agent.graph import openai_tool_schema
    from app.agent.handler import agent_handler
    from app.agent.llm import OfflinePlanner
    from app.agent.tools import TOOL_CATALOG
    from app.parts import build_parts
    from app.settings import Settings
    from app.store import users

    model = OfflinePlanner()
    parts = build_parts(Settings(), model=model, tools={"search_dashboards": _noop_search})
    core = parts.core
    with parts.db.session() as session:  # tokens are honoured only for existing, enabled users
        if users.get_user_by_name(session, username="bench") is None:
            users.create_user(session, username="bench", role="admin", password_hash="!")
    token = parts.auth.issue(username="bench", role="admin")[0]
    message = "find dashboards about sales"

    async def ours() -> float:
        t0 = time.perf_counter()
        conv = uuid.uuid4().hex
        async for _ in agent_handler(message, None, conv, "bench", token, "dev", core=core):
            pass
        return (time.perf_counter() - t0) * 1000

    async def page() -> float:
        t0 = time.perf_counter()
        req = await prepare_turn(
            core=core,
            token=token,
            message=message,
            history=None,
            conv_id=uuid.uuid4().hex,
            env_id="dev",
            uicontext=None,
            channel="page",
        )
        async for _ in core.run_turn(req):
            pass
        return (time.perf_counter() - t0) * 1000

    spec = TOOL_CATALOG["search_dashboards"]

    @tool("search_dashboards", description=spec.description, args_schema=spec.args_model)
    async def search_dashboards(**kwargs: Any) -> str:
        """no-op"""
        return json.dumps(await _noop_search(None, None))

    import aiosqlite

    tmp = Path(tempfile.mkdtemp(prefix="bench-bare-"))
    saver = AsyncSqliteSaver(await aiosqlite.connect(str(tmp / "bare.db")))
    bound = model.bind_tools([openai_tool_schema(spec)])

    async def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await bound.ainvoke(state["messages"])]}

    g = StateGraph(MessagesState)
    g.add_node("model", call_model)
    g.add_node("tools", ToolNode([search_dashboards]))
    g.add_edge(START, "model")
    g.add_conditional_edges("model", tools_condition, ["tools", END])
    g.add_edge("tools", "model")
    bare_graph = g.compile(checkpointer=saver)

    async def bare() -> float:
        t0 = time.perf_counter()
        cfg = {"configurable": {"thread_id": uuid.uuid4().hex}}
        async for _ in bare_graph.astream(
            {"messages": [HumanMessage(message)]}, cfg, stream_mode=["messages", "updates"]
        ):
            pass
        return (time.perf_counter() - t0) * 1000

    for _ in range(5):  # warm every path
        await ours()
        await page()
        await bare()
    a: list[float] = []
    p: list[float] = []
    b: list[float] = []
    for _ in range(turns):  # interleave so drift hits all alike
        a.append(await ours())
        p.append(await page())
        b.append(await bare())
    await saver.conn.close()
    await core.aclose()
    parts.close()
    p50a, p50p, p50b = statistics.median(a), statistics.median(p), statistics.median(b)
    print(f"[overhead] ours (SSE)  p50={p50a:.2f} ms p95={pct(a, 95):.2f} ms  (n={turns})")
    print(f"[overhead] ours (page) p50={p50p:.2f} ms p95={pct(p, 95):.2f} ms")
    print(f"[overhead] bare        p50={p50b:.2f} ms p95={pct(b, 95):.2f} ms")
    print(
        f"[overhead] ratio (p50 ours / p50 bare): SSE {p50a / p50b:.3f}, page "
        f"{p50p / p50b:.3f}; added p50 = {p50a - p50b:.2f} ms (SSE)"
    )
    return {
        "overhead_ratio": round(p50a / p50b, 3),
        "overhead_ratio_page": round(p50p / p50b, 3),
        "p50_overhead_ms": round(p50a - p50b, 2),
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
    from sqlmodel import Session

    from app.store.audit import count_audit
    from app.store.db import make_engine

    engine = make_engine(db_url)
    with Session(engine) as s:
        n = count_audit(s)
    engine.dispose()
    return int(n)


async def load(levels: tuple[int, ...] = (50, 200)) -> dict[str, float]:
    from tests.server_proc import Server, cli, server_env

    out: dict[str, float] = {}
    data = Path(tempfile.mkdtemp(prefix="bench-load-"))
    env = server_env(data)
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
