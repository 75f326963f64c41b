"""Where the page turn's added time goes: ``python -m bench.breakdown [turns]``.

The page path (``bench.agent_bench``) is timed in four variants in one process, each turn
interleaved with the others and with the bare agent, the order reversed every round so
neither drift nor a turn's place in the round favours one variant:

* ``page``: as it is;
* ``no audit commit``: the audit batch's futures end without a write (what the durable
  audit commit costs the turn);
* ``no screen``: the StreamProcessor drops the events (what updating the screen model
  costs);
* ``neither``: both (what is left: the core's own work: plan, policy, guard, tool node,
  events, the run control; and the bigger graph state).

A what-if measurement: the knocked-out variants are not the product (they lose the audit
rows and the screen). Prints each variant's p50, its ratio to the bare agent's and the
time it adds; the differences between the rows are the parts' costs.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage

from app.agent import audit_commit
from app.planner import OfflinePlanner
from app.tools.catalog import TOOL_CATALOG
from bench.agent_bench import (
    MESSAGE,
    _bare_graph,
    bench_parts,
    bench_settings,
    offered_tools,
    page_controller,
)

VARIANTS = ("page", "no audit commit", "no screen", "neither")


def _no_write(committer: Any, batch: list[audit_commit.Item]) -> None:
    for item in batch:
        audit_commit._resolve(item[2], None)


async def breakdown(turns: int = 200) -> dict[str, float]:
    data = Path(tempfile.mkdtemp(prefix="bench-breakdown-"))
    parts = bench_parts(bench_settings(data))
    core = parts.core
    controller, _ = page_controller(parts)
    bare_graph, saver = await _bare_graph(
        OfflinePlanner(catalog=TOOL_CATALOG), data / "bare.db", offered_tools(parts)
    )
    submit = audit_commit.BatchCommitter.submit
    processor = controller.processor
    apply = processor.apply

    def variant(name: str) -> None:
        no_audit = name in ("no audit commit", "neither")
        audit_commit.BatchCommitter.submit = _no_write if no_audit else submit  # type: ignore[method-assign,assignment]
        no_screen = name in ("no screen", "neither")
        processor.apply = (lambda event: None) if no_screen else apply  # type: ignore[method-assign,assignment]

    async def page() -> None:
        await controller.send(MESSAGE)

    async def bare() -> None:
        cfg = {"configurable": {"thread_id": uuid.uuid4().hex}}
        async for _ in bare_graph.astream(
            {"messages": [HumanMessage(MESSAGE)]}, cfg, stream_mode=["messages", "updates"]
        ):
            pass

    async def timed(run: Callable[[], Awaitable[None]]) -> float:
        t0 = time.perf_counter()
        await run()
        return (time.perf_counter() - t0) * 1000

    times: dict[str, list[float]] = {name: [] for name in (*VARIANTS, "bare")}
    try:
        for i in range(turns + 5):  # the first 5 rounds warm every variant
            order = VARIANTS if i % 2 else VARIANTS[::-1]
            for name in order:
                variant(name)
                elapsed = await timed(page)
                await core.turns().drain()  # the run's close, untimed
                controller.new_conversation()
                if i >= 5:
                    times[name].append(elapsed)
            elapsed = await timed(bare)
            if i >= 5:
                times["bare"].append(elapsed)
    finally:
        variant("page")
        await saver.conn.close()
        await core.aclose()
        parts.close()
    base = statistics.median(times["bare"])
    result: dict[str, float] = {}
    for name, values in times.items():
        p50 = statistics.median(values)
        result[name] = round(p50 / base, 3)
        print(
            f"[breakdown] {name:16} p50={p50:6.2f} ms  ratio {p50 / base:.3f}  "
            f"added {p50 - base:5.2f} ms  (n={turns})"
        )
    return result


if __name__ == "__main__":
    asyncio.run(breakdown(int(sys.argv[1]) if len(sys.argv) > 1 else 200))
