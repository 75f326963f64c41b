"""Which product modules one read turn enters: ``python -m bench.trace_turn``.

The turn "what can you do?" runs through the HTTP door's path (``agent_handler``: the one
input check, the core, the graph, the guard, the audit rows, SSE encoding) with the
offline model, once to warm up and once traced. A module is *entered* when one of its
functions runs during the traced turn (``sys.setprofile`` on the loop's thread and on
worker threads). Prints the count and the modules, then one line of JSON.

Two counts: every product module entered, and the same without the model's own modules
(``app.planner``: the offline planner stands where any chat model would; with a real
model none of its modules run).
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import threading
import uuid
from pathlib import Path
from types import FrameType
from typing import Any

from bench.agent_bench import USER, bench_parts, bench_settings

ROOT = Path(__file__).resolve().parent.parent
MESSAGE = "what can you do?"
MODEL_PACKAGE = "app.planner"


def _module_of(filename: str) -> str | None:
    path = Path(filename)
    try:
        rel = path.relative_to(ROOT)
    except ValueError:
        return None
    if rel.parts[0] not in ("app", "components"):
        return None
    return ".".join(rel.with_suffix("").parts)


async def _turn(parts: Any, token: str) -> list[str]:
    from app.agent.handler import agent_handler

    kinds = []
    conv = uuid.uuid4().hex
    async for frame in agent_handler(MESSAGE, None, conv, USER, token, "dev", core=parts.core):
        kinds.append(frame.split("\n", 1)[0].removeprefix("event: "))
    await parts.core.turns().drain()
    return kinds


async def trace(parts: Any) -> dict[str, Any]:
    token = parts.auth.issue(username=USER, role="admin")[0]
    await _turn(parts, token)  # warm: imports, the graph, the checkpointer
    entered: set[str] = set()

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event == "call":
            module = _module_of(frame.f_code.co_filename)
            if module is not None:
                entered.add(module)

    sys.setprofile(profile)
    threading.setprofile(profile)
    try:
        kinds = await _turn(parts, token)
    finally:
        sys.setprofile(None)
        threading.setprofile(None)  # type: ignore[arg-type]
    await parts.core.aclose()
    if kinds[-1] != "done":
        raise RuntimeError(f"the traced turn did not end with done: {kinds}")
    return {"modules_entered": len(entered), "modules": sorted(entered)}


def main() -> int:
    data = Path(tempfile.mkdtemp(prefix="bench-trace-"))
    parts = bench_parts(bench_settings(data), real_tools=True)
    try:
        result = asyncio.run(trace(parts))
    finally:
        parts.close()
    for module in result["modules"]:
        print(f"  {module}")
    without_model = [m for m in result["modules"] if not m.startswith(MODEL_PACKAGE)]
    print(f"[trace] '{MESSAGE}' entered {result['modules_entered']} product modules")
    print(f"[trace] without the model's own ({MODEL_PACKAGE}*): {len(without_model)}")
    print(
        json.dumps(
            {
                "modules_entered": result["modules_entered"],
                "without_the_model": len(without_model),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
