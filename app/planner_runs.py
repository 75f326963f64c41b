"""The offline planner's replies, planned in child processes within a time budget.

The planner reads whatever a person sends (up to ``message_max_chars``). Its patterns
run in linear time, but a reply is still CPU work, and it must neither stall the event
loop nor run without end: :func:`planner_runner` plans each reply in a child process
(:class:`app.workers.ChildWorkers`, ``python -m app.planner_runs``), at most
``planner_workers`` at once, and a reply not ready within ``planner_budget_s`` seconds
raises :class:`~app.workers.WorkerTimeout` (a ``TimeoutError``: the model node ends the
turn with the ``model_timed_out`` sentence and an audit row) and its child is killed.

Why a process, not :func:`app.cpu.off_loop`'s thread: see :mod:`app.workers`. The child
also stops a job itself after twice the budget of CPU time (``re`` checks for signals
while it matches), which ends a job whose parent is gone.

Until the first child has started (about 1.5 s after the first reply asks for one, in
the background) replies are planned in :func:`app.cpu.off_loop`'s thread: off the loop,
and a reply past the budget still ends the turn, but its thread finishes in the
background (the patterns are linear: a 20,000-character message takes ~0.2 s). So is a
catalog that cannot be pickled (a tool declared inside a function, in a test): it has no
child at all.
"""

from __future__ import annotations

import asyncio
import atexit
import hashlib
import json
import logging
import pickle
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage

from app.cpu import off_loop
from app.planner.known import Known
from app.planner.plan import Reply, plan_reply
from app.policy import ToolSpec
from app.workers import ChildWorkers, WorkerError, WorkerTimeout, serve

log = logging.getLogger(__name__)
ARGV = (sys.executable, "-m", "app.planner_runs")
ROOT = str(Path(__file__).resolve().parent.parent)  # where ``-m app.…`` is found
Runner = Callable[[list[BaseMessage], tuple[str, ...] | None], Awaitable[Reply]]
_POOLS: dict[tuple[Any, ...], ChildWorkers] = {}


def planner_runner(
    catalog: Mapping[str, ToolSpec] | None,
    *,
    budget_s: float,
    workers: int,
    argv: Sequence[str] = ARGV,
    thread_until_started: bool = True,
) -> Runner:
    """How an :class:`~app.planner.OfflinePlanner` with ``catalog`` plans a reply
    (``thread_until_started=False``: the first reply waits for its child instead)."""
    try:
        hello = pickle.dumps(dict(catalog or {}))
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        log.warning("the planner plans in a thread: its catalog cannot be pickled (%s)", exc)
        return _thread_runner(catalog, budget_s)
    key = (tuple(argv), workers, hashlib.sha256(hello).hexdigest())
    if key not in _POOLS:
        _POOLS[key] = ChildWorkers(argv, size=workers, hello=hello, cwd=ROOT)
    pool = _POOLS[key]
    in_thread = _thread_runner(catalog, budget_s)

    async def run(messages: list[BaseMessage], bound: tuple[str, ...] | None) -> Reply:
        if not pool.warm() and thread_until_started:
            return await in_thread(messages, bound)
        answer = json.loads(await pool.call(pickle.dumps((messages, bound, budget_s)), budget_s))
        if "error" in answer:
            raise WorkerError(f"the planner failed: {answer['error']}")
        return Reply(answer["content"], answer["tool_calls"])

    return run


def _thread_runner(catalog: Mapping[str, ToolSpec] | None, budget_s: float) -> Runner:
    known = Known(catalog)

    async def run(messages: list[BaseMessage], bound: tuple[str, ...] | None) -> Reply:
        work = off_loop(plan_reply, messages, bound, known)
        try:
            return await asyncio.wait_for(work, budget_s)
        except TimeoutError:
            raise WorkerTimeout("the planner ran past its budget") from None

    return run


@atexit.register
def close_pools() -> None:
    """End every planner child of this process (a later reply starts new ones)."""
    while _POOLS:
        _POOLS.popitem()[1].close()


# ---- the child ------------------------------------------------------------------------
class _Overrun(Exception):
    """The child's own CPU budget for one job ran out."""


def _overrun(_signum: int, _frame: Any) -> None:
    raise _Overrun


def _child() -> None:
    known: list[Known] = []

    def ready(hello: bytes) -> None:
        known.append(Known(pickle.loads(hello)))
        signal.signal(signal.SIGPROF, _overrun)

    def handle(job: bytes) -> bytes:
        messages, bound, budget_s = pickle.loads(job)
        signal.setitimer(signal.ITIMER_PROF, 2 * budget_s)
        try:
            reply = plan_reply(messages, bound, known[0])
            answer: dict[str, Any] = {"content": reply.content, "tool_calls": reply.tool_calls}
        except _Overrun:
            answer = {"error": f"over {2 * budget_s} s of CPU"}
        except Exception as exc:  # the parent says it: the turn ends with a sentence
            answer = {"error": f"{type(exc).__name__}: {exc}"[:500]}
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
        return json.dumps(answer, ensure_ascii=False, default=str).encode()

    serve(handle, ready)


if __name__ == "__main__":
    _child()
