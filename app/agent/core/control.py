"""Runs of a conversation and how they stop: one :class:`RunControl` per busy
period of a conversation (a turn or a resume, with any superseding run), kept by the
core's :class:`TurnRegistry` (one per core and event loop; no module globals).

* **One at a time.** ``begin`` waits until the conversation's previous run has fully
  ended (its graph finished, its bookkeeping done): a turn that was stopped while a write
  was in flight holds the conversation until that write ends, so the next message runs
  on a consistent checkpoint.
* **The graph runs in its own task** (:meth:`RunControl.pump`): the stream's consumer
  reads its output from a queue. A consumer that goes away (a closed page or HTTP
  stream) stops the run; the graph itself is never cancelled, it ends through its own
  nodes (``app.agent.state``: stopping).
* **Stop** (:meth:`RunControl.stop`): cancels the model call and reads in flight, lets
  writes run to their end, and puts a marker in the stream so the consumer can answer at
  once. With a write in flight the consumer *detaches*; the rest of the run's events go
  to a follower (:meth:`RunControl.follow`) — the page, to update the write's card.

**Runs across replicas** (PostgreSQL): ``app.agent.core.replica_runs``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from app.events import Event

R = TypeVar("R")

log = logging.getLogger("ss_tools.agent")

ITEM, STOP, END, ERROR = "item", "stop", "end", "error"
# How long a core's shutdown waits for a graph still running before cancelling it.
SHUTDOWN_GRACE_S = 5.0


@dataclass(frozen=True)
class Flight:
    """A job a node is running: the model call, a read or a write."""

    call_id: str
    tool_name: str
    write: bool


class RunControl:
    """The stop switch and the output queue of one busy period of ``conv_id``."""

    def __init__(self, conv_id: str, owner: str) -> None:
        self.conv_id, self.owner = conv_id, owner
        self.stopped = False
        self.detached = False
        self.closing = False  # the consumer is done; bookkeeping may still run
        self.done_state: str | None = None  # the ``done`` the consumer saw, if it did
        self.noted: asyncio.Future[None] | None = None  # a turn's conversation-list row
        # what frees the conversation beyond this process (its replicas' run lock), run
        # once the run has ended (``TurnRegistry`` close path; :class:`ReplicaRuns`)
        self.release: Callable[[], Awaitable[None]] | None = None
        self._jobs: dict[asyncio.Future[Any], Flight] = {}
        self._queue: asyncio.Queue[tuple[str, Any]] | None = None
        self.producers: set[asyncio.Task[None]] = set()
        self.finished: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    # ---- what the nodes tell it (app.agent.state.RunControlLike) ---------------------
    def track(
        self, job: asyncio.Future[Any], *, call_id: str = "", tool_name: str = "", write: bool
    ) -> None:
        if job.done():
            return
        self._jobs[job] = Flight(call_id, tool_name, write)
        job.add_done_callback(lambda done: self._jobs.pop(done, None))
        if self.stopped and not write:
            job.cancel()

    def writes_in_flight(self) -> list[Flight]:
        return [f for job, f in self._jobs.items() if f.write and not job.done()]

    # ---- stopping ---------------------------------------------------------------------
    def stop(self) -> list[Flight]:
        """Stop the run: cancel the model call and the reads in flight (writes go on) and
        tell the consumer. Returns the writes still running. Idempotent."""
        if not self.stopped:
            self.stopped = True
            for job, flight in list(self._jobs.items()):
                if not flight.write:
                    job.cancel()
            if self._queue is not None:
                self._queue.put_nowait((STOP, None))
        return self.writes_in_flight()

    # ---- the graph's output -------------------------------------------------------------
    async def pump(self, source: AsyncIterator[Any]) -> AsyncIterator[tuple[str, Any]]:
        """Run ``source`` (``graph.astream``) in its own task and yield ``(ITEM, item)``
        for its output and ``(STOP, None)`` when a stop comes. If the consumer leaves
        before the end without detaching, the run is stopped (and still ends cleanly)."""
        queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self._queue = queue
        if self.stopped:  # stopped before this run of the graph began: say so first
            queue.put_nowait((STOP, None))
        task = asyncio.create_task(self._produce(source, queue), name=f"run-{self.conv_id}")
        self.producers.add(task)
        task.add_done_callback(self.producers.discard)
        try:
            while True:
                kind, item = await queue.get()
                if kind == END:
                    return
                if kind == ERROR:
                    raise item
                yield kind, item
        finally:
            if not task.done() and not self.detached:
                self.stop()

    async def _produce(self, source: AsyncIterator[Any], queue: asyncio.Queue[Any]) -> None:
        try:
            async for item in source:
                queue.put_nowait((ITEM, item))
        except asyncio.CancelledError:  # the loop is shutting down
            queue.put_nowait((END, None))
            raise
        except Exception as exc:  # handed to the consumer (or logged when it has left)
            if self.detached:
                log.warning("detached run of %s failed: %r", self.conv_id, exc)
            queue.put_nowait((ERROR, exc))
        else:
            queue.put_nowait((END, None))

    def detach(self) -> None:
        """The consumer answers now and leaves; the run goes on for its writes."""
        self.detached = True

    async def follow(self) -> AsyncIterator[Any]:
        """The rest of a detached run's output (one follower)."""
        queue = self._queue
        if queue is None or not self.detached:
            return
        while True:
            kind, item = await queue.get()
            if kind in (END, ERROR):
                return
            if kind == ITEM:
                yield item


async def wait_all(tasks: set[asyncio.Task[None]]) -> None:
    """Wait until every task of ``tasks`` has finished, those added meanwhile too. A task
    leaves such a set by its done callback, which runs a loop iteration after it finished;
    so only the unfinished ones are awaited: on Python 3.12 a gather of finished tasks
    returns without yielding to the loop, and waiting for the set to empty spun forever."""
    while pending := [task for task in tasks if not task.done()]:
        await asyncio.gather(*pending, return_exceptions=True)


class TurnRegistry:
    """The running :class:`RunControl` of each conversation (per core and event loop)."""

    def __init__(self) -> None:
        self._active: dict[str, RunControl] = {}
        self._closing: set[asyncio.Task[None]] = set()

    def active(self, conv_id: str) -> RunControl | None:
        return self._active.get(conv_id)

    async def begin(self, conv_id: str, owner: str) -> RunControl:
        """A new busy period of ``conv_id``, once the previous one has ended."""
        while (previous := self._active.get(conv_id)) is not None:
            await asyncio.shield(previous.finished)
        control = RunControl(conv_id, owner)
        self._active[conv_id] = control
        return control

    def end(self, control: RunControl, after: Callable[[], Awaitable[None]]) -> None:
        """The consumer is done: once the run's graph has finished, run ``after()`` (the
        core's bookkeeping), then free the conversation. Needs no await (it may be called
        while a stream is being closed)."""
        control.closing = True
        task = asyncio.ensure_future(self._close(control, after))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    async def _close(self, control: RunControl, after: Callable[[], Awaitable[None]]) -> None:
        try:
            await wait_all(control.producers)
            await after()
        except Exception:  # bookkeeping failed: logged; the conversation must not stay busy
            log.exception("closing the run of %s failed", control.conv_id)
        finally:
            await self._release(control)
            self.abandon(control)

    @staticmethod
    async def _release(control: RunControl) -> None:
        release, control.release = control.release, None
        if release is None:
            return
        try:
            await release()
        except Exception:  # never raises by contract; logged if it does
            log.exception("releasing the run of %s failed", control.conv_id)

    def abandon(self, control: RunControl) -> None:
        """Free the conversation at once: the run ended, or never started (refused)."""
        if self._active.get(control.conv_id) is control:
            del self._active[control.conv_id]
        if not control.finished.done():
            control.finished.set_result(None)

    async def drain(self) -> None:
        """Wait for every run being closed (core shutdown, tests)."""
        await wait_all(self._closing)

    async def shut_down(self, grace_s: float | None = None) -> None:
        """Core shutdown: the runs being closed end; a graph still running (its page or
        stream still reading) gets ``grace_s`` to end and is then cancelled, so no run
        writes a checkpoint after the checkpointer has closed."""
        await self.drain()
        running = {task for control in self._active.values() for task in control.producers}
        if running:
            grace = SHUTDOWN_GRACE_S if grace_s is None else grace_s
            _, late = await asyncio.wait(running, timeout=grace)
            for task in late:
                task.cancel()
            await asyncio.gather(*late, return_exceptions=True)
        await self.drain()


#: How long the running side waits for a run whose consumer is already done to end,
#: before it answers "nothing to stop".
ENDING_WAIT_S = 2.0


async def stop_local(control: RunControl | None) -> list[dict[str, str]] | None:
    """The running side of another replica's stop: ``control.stop()`` and its writes in
    flight; None when there is nothing to stop here (no run, or one whose consumer is
    done: it is waited for a moment, so the asker reads the run as ended)."""
    if control is None:
        return None
    if control.closing and not control.stopped:
        with contextlib.suppress(TimeoutError):  # waited a moment; the asker reads it as ended
            await asyncio.wait_for(asyncio.shield(control.finished), ENDING_WAIT_S)
        return None
    return [{"call_id": w.call_id, "tool_name": w.tool_name} for w in control.stop()]


async def admitted(
    prepared: Awaitable[R], run: Callable[[R], AsyncIterator[Event]]
) -> AsyncIterator[Event]:
    """A door's two steps, the one way every door takes them: the one input check
    (``prepared``: a ``prepare_*`` awaited), then the core's run of the checked request,
    :func:`opened`. A refusal of either raises ``RequestRefused`` here, before any event,
    for the door to answer in its own form (SSE frames, a JSON error, an MCP error, the
    page's sentence with the text back in the composer)."""
    return await opened(run(await prepared))


async def opened(events: AsyncIterator[Event]) -> AsyncIterator[Event]:
    """``events`` with their first one already taken: a run refused at its start (409
    ``conversation_busy``, 503) raises ``RequestRefused`` here, so a door can answer it
    before any stream begins."""
    first: list[Event] = []
    with contextlib.suppress(StopAsyncIteration):  # an empty stream: nothing to take
        first.append(await anext(events))
    return _chained(first, events)


async def _chained(first: list[Event], rest: AsyncIterator[Any]) -> AsyncIterator[Event]:
    try:
        for ev in first:
            yield ev
        if first:
            async for ev in rest:
                yield ev
    finally:
        closing = getattr(rest, "aclose", None)
        if closing is not None:
            await closing()
