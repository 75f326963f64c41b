"""Agent overhead benchmark (the core must cost little beside the model): per-turn time of our
core against a bare LangGraph agent, in this process, with the same offline model, the same
no-op tool (search_dashboards) and the same checkpointer, opened the same way (an aiosqlite
file with the core's pragmas: ``open_sqlite_saver``), interleaved so drift hits all three
alike:

* SSE: ``agent_handler`` (the HTTP door's path: auth, the one input check, pipeline,
  guard, audit rows, typed events, SSE encoding);
* page: the page controller (``AgentPageController.send``: ``prepare_turn`` with the
  session's principal, ``core.run_turn``, the StreamProcessor updating the screen model;
  typed events, no SSE text), each turn in a new conversation, like the other two paths
  (the page's "New conversation" runs between turns, untimed: a click, not a turn);
* bare: ``StateGraph(model -> ToolNode -> model)``, its model offered the same tool set the
  core offers the model in that turn (``plan_turn``: 22 tools for the bench's admin on
  ``dev``), so the model does the same work on both sides and the ratio is the core's own
  cost. The same agent offered only the one tool it calls is timed too and printed as
  ``bare (1 tool)`` (the baseline before session 5; the planner reads every offered tool,
  about 1.7 ms of a turn for 22).

Each turn is timed to its ``done``; the core's bookkeeping after ``done`` (the run's
close: the conversation list's badge) finishes untimed before the next turn starts, so
it is billed to neither path. Prints p50/p95 and the ratios of the medians.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition

from app.agent.checkpoint import open_sqlite_saver
from app.agent.core.turn_plan import plan_turn
from app.agent.handler import agent_handler
from app.agent.prompt import tool_schema
from app.pages.agent_controller import AgentPageController
from app.pages.agent_page import core_door
from app.parts import Parts, build_parts
from app.planner import OfflinePlanner
from app.screen.chat_model import AgentChatModel
from app.settings import Settings
from app.store import users
from app.tools.catalog import TOOL_CATALOG

MESSAGE = "find dashboards about sales"
USER = "bench"


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(q / 100 * (len(s) - 1))))]


async def _noop_search(args: Any, deps: Any) -> dict[str, Any]:
    return {"count": 1, "dashboards": [{"id": 1, "title": "Sales Overview"}]}


def bench_parts(settings: Settings, *, real_tools: bool = False) -> Parts:
    """The app's parts with the offline model and the no-op search tool (``real_tools``:
    the product's own), and the bench user (tokens are honoured only for existing,
    enabled users)."""
    tools = None if real_tools else {"search_dashboards": _noop_search}
    parts = build_parts(settings, model=OfflinePlanner(catalog=TOOL_CATALOG), tools=tools)
    with parts.db.session() as session:
        if users.get_user_by_name(session, username=USER) is None:
            users.create_user(session, username=USER, role="admin", password_hash="!")
    return parts


def bench_settings(data: Path) -> Settings:
    """Throwaway state of the bench's own in ``data``, whatever the shell says."""
    return Settings(
        dev=True,
        data_dir=data,
        database_url=f"sqlite:///{data / 'ss_tools.db'}",
        environments_file=data / "environments.toml",
        # hundreds of turns of one bench user: its pace is checked (and timed) on every
        # turn, but never refuses one; its running slots keep their default
        user_turns_per_minute=1_000_000,
        user_calls_per_minute=1_000_000,
    )


def page_controller(parts: Parts) -> tuple[AgentPageController, AgentChatModel]:
    """A page visit of the bench user on ``dev``: its controller and screen model."""
    token = parts.auth.issue(username=USER, role="admin")[0]
    principal = parts.auth.decode(token)  # the session's principal (with its stamp)
    screen = AgentChatModel(role="admin")
    controller = AgentPageController(
        screen, core_door(parts.core), principal=principal, token=token
    )
    controller.open({})
    screen.update_active_env("dev")
    return controller, screen


def offered_tools(parts: Parts) -> list[str]:
    """The tools the core offers the model in the bench's turn (admin, ``dev``, no page)."""
    return plan_turn(parts.rules.policy(), "admin", None, "dev", None)["allowed_tools"]


async def _bare_graph(
    model: OfflinePlanner, path: Path, offered: list[str] | None = None
) -> tuple[Any, AsyncSqliteSaver]:
    """The bare agent; its model is offered ``offered`` (default: only the tool it runs)."""
    spec = TOOL_CATALOG["search_dashboards"]

    @tool("search_dashboards", description=spec.description, args_schema=spec.args_model)
    async def search_dashboards(**kwargs: Any) -> str:
        """no-op"""
        return json.dumps(await _noop_search(None, None))

    saver = await open_sqlite_saver(path)  # the same pragmas as the core's
    bound = model.bind_tools([tool_schema(TOOL_CATALOG[name]) for name in offered or [spec.name]])

    async def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await bound.ainvoke(state["messages"])]}

    g = StateGraph(MessagesState)
    g.add_node("model", call_model)
    g.add_node("tools", ToolNode([search_dashboards]))
    g.add_edge(START, "model")
    g.add_conditional_edges("model", tools_condition, ["tools", END])
    g.add_edge("tools", "model")
    return g.compile(checkpointer=saver), saver


async def _timed(
    run: Callable[[], Awaitable[None]], settle: Callable[[], Awaitable[None]] | None = None
) -> float:
    """A turn's time to its end (``done``); then, untimed, ``settle`` lets the turn's
    bookkeeping after ``done`` finish, so it is not billed to the next path's turn."""
    t0 = time.perf_counter()
    await run()
    elapsed = (time.perf_counter() - t0) * 1000
    if settle is not None:
        await settle()
    return elapsed


async def overhead(parts: Parts, turns: int = 60) -> dict[str, float]:
    core = parts.core
    token = parts.auth.issue(username=USER, role="admin")[0]
    controller, screen = page_controller(parts)
    bare_dir = Path(tempfile.mkdtemp(prefix="bench-bare-"))
    bare_graph, saver = await _bare_graph(
        OfflinePlanner(catalog=TOOL_CATALOG), bare_dir / "bare.db", offered_tools(parts)
    )
    one_graph, one_saver = await _bare_graph(
        OfflinePlanner(catalog=TOOL_CATALOG), bare_dir / "one.db"
    )

    async def ours() -> None:
        conv = uuid.uuid4().hex
        async for _ in agent_handler(MESSAGE, None, conv, USER, token, "dev", core=core):
            pass

    async def page() -> None:  # a turn in the page's current (new) conversation
        await controller.send(MESSAGE)
        if screen.state != "idle":
            raise RuntimeError(f"page turn ended in state {screen.state}")

    async def bare(graph: Any = bare_graph) -> None:
        cfg = {"configurable": {"thread_id": uuid.uuid4().hex}}
        async for _ in graph.astream(
            {"messages": [HumanMessage(MESSAGE)]}, cfg, stream_mode=["messages", "updates"]
        ):
            pass

    async def bare_one() -> None:
        await bare(one_graph)

    async def settle() -> None:
        await core.turns().drain()

    async def settle_page() -> None:  # and "New conversation" (a click, not a turn)
        await settle()
        controller.new_conversation()

    for _ in range(5):  # warm every path
        await ours()
        await page()
        await settle_page()
        await bare()
        await bare_one()
    a: list[float] = []
    p: list[float] = []
    b: list[float] = []
    b1: list[float] = []
    for _ in range(turns):  # interleave so drift hits all alike
        a.append(await _timed(ours, settle))
        p.append(await _timed(page, settle_page))
        b.append(await _timed(bare))
        b1.append(await _timed(bare_one))
    await saver.conn.close()
    await one_saver.conn.close()
    await core.aclose()
    p50a, p50p, p50b = statistics.median(a), statistics.median(p), statistics.median(b)
    p50b1 = statistics.median(b1)
    print(f"[overhead] ours (SSE)  p50={p50a:.2f} ms p95={pct(a, 95):.2f} ms  (n={turns})")
    print(f"[overhead] ours (page) p50={p50p:.2f} ms p95={pct(p, 95):.2f} ms")
    print(f"[overhead] bare        p50={p50b:.2f} ms p95={pct(b, 95):.2f} ms")
    print(f"[overhead] bare (1 tool) p50={p50b1:.2f} ms p95={pct(b1, 95):.2f} ms")
    print(
        f"[overhead] ratio (p50 ours / p50 bare): SSE {p50a / p50b:.3f}, page "
        f"{p50p / p50b:.3f}; added p50 = {p50a - p50b:.2f} ms (SSE), "
        f"{p50p - p50b:.2f} ms (page)"
    )
    print(f"[overhead] against bare (1 tool): SSE {p50a / p50b1:.3f}, page {p50p / p50b1:.3f}")
    return {
        "overhead_ratio": round(p50a / p50b, 3),
        "overhead_ratio_page": round(p50p / p50b, 3),
        "p50_overhead_ms": round(p50a - p50b, 2),
        "p50_overhead_ms_page": round(p50p - p50b, 2),
        "overhead_ratio_one_tool": round(p50a / p50b1, 3),
        "overhead_ratio_page_one_tool": round(p50p / p50b1, 3),
    }
