"""CPU-heavy pure work (SQL parses) off the shared event loop, which serves every user.

One request's SQL text can take sqlglot a second or more to tokenize and parse in every
dialect; on the event loop that would stall every other user (``/api/health`` took 7–13 s
behind one 64 KB query). :func:`off_loop` runs such work in a small dedicated thread
pool: the loop keeps serving, and at most :data:`MAX_WORKERS` parses compete with it for
the interpreter at once (more wait their turn), so many large texts cannot starve it.

A thread cannot be stopped: work whose running time hostile input could stretch without
bound, and that must end by a deadline, runs in a child process instead
(:mod:`app.workers`; the offline planner's replies, :mod:`app.planner_runs`).
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

MAX_WORKERS = 2

P = ParamSpec("P")
T = TypeVar("T")

_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=MAX_WORKERS, thread_name_prefix="ss-tools-cpu")
        return _pool


async def off_loop(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` in the CPU pool, awaited without blocking the loop."""
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_executor(), functools.partial(fn, *args, **kwargs))
