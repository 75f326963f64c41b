"""Stop a turn from any replica: a ``run_signal`` row per running turn plus PostgreSQL
``LISTEN/NOTIFY``, so a stop asked on replica B reaches replica A at once.

The seam (the agent core calls it; one per event loop, beside its ``TurnRegistry``)::

    signals = run_signals_for(db)      # app.store.run_coordination: PgRunSignals or LocalRunSignals
    await signals.listen(on_stop)        # core start: on_stop(conv_id) -> writes_in_flight
    ticket = await signals.started(conv_id, user_id=...)   # a run began (lock held)
    ...
    await signals.finished(ticket, stopped=...)    # the run ended (before unlock); stopped?

    # /cancel on a replica where the conversation has no local RunControl:
    info = await signals.running(conv_id)        # RunInfo | None: where, for whom
    answer = await signals.request_stop(conv_id, by=user_id)   # StopAnswer | None

``on_stop(conv_id)`` is the running side's stop: the core's ``RunControl.stop()`` for that
conversation, answering its writes in flight as ``[{"call_id", "tool_name"}]`` (the
run's end then withdraws a pending confirmation, as it does today), or None when there
is nothing to stop (the run is ending: the asker then reads it as ``ended``). It runs on the
replica that runs the turn, in a task of its signals object, and must not wait for the
run to end. The PostgreSQL side is :mod:`app.store.run_signals_pg`.

How a stop travels (PostgreSQL, :class:`PgRunSignals`):

1. B: ``request_stop`` marks the row (``stop_requested_at``) and ``NOTIFY``s
   ``ss_tools_run_stop`` in the same transaction: from its commit on, the request is
   durable. B then waits (``wait_s``, 3 s) for the answer on its own listener;
2. A's listener (one dedicated connection per process, ``LISTEN``) calls ``on_stop``,
   writes ``stopped_at`` + ``writes_in_flight`` and ``NOTIFY``s ``ss_tools_run_answer``;
3. B returns :class:`StopAnswer`: ``stopped`` (confirmed) with ``writes_in_flight``. A
   run that ended first answers ``ended=True``, with ``stopped`` saying whether its stop
   switch had been thrown (its row's deletion carries that: A's answer and the run's end
   may commit in either order). No answer in time gives ``answered=False``: the stop is
   *accepted*, not yet confirmed. It stays on the row, and A honours it at its next
   heartbeat (``heartbeat_s``) even if its notification was lost, or when its listener
   reconnects; a busy A answers the notification itself when it gets to it.

A replica's rows carry a heartbeat (``heartbeat_s``); a row older than ``stale_after_s``
whose conversation's run lock is free belongs to a dead replica and counts as no run (and
is deleted by a later heartbeat). A stale row whose lock is held is a slow replica's
live run (``app.store.run_rows.live_run``).
On SQLite (one process) :class:`LocalRunSignals` does nothing: the in-process
``TurnRegistry`` finds every run.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from app.store.models import RunSignal

STOP_WAIT_S = 3.0
HEARTBEAT_S = 5.0
STALE_AFTER_S = 20.0

OnStop = Callable[[str], Awaitable[list[dict[str, str]] | None]]


@dataclass(frozen=True)
class RunTicket:
    """A run this process announced (:meth:`RunSignals.started`)."""

    conv_id: str
    run_id: str
    user_id: str | None = None


@dataclass(frozen=True)
class RunInfo:
    """A conversation's running turn, wherever it runs."""

    conv_id: str
    run_id: str
    replica: str
    user_id: str | None
    started_at: datetime
    stop_requested_at: datetime | None


@dataclass(frozen=True)
class StopAnswer:
    """What the running replica answered: ``stopped`` (confirmed: the run's stop switch is
    thrown) with ``writes_in_flight`` (the writes that go on); ``ended``: the run ended
    before it answered (``stopped`` then says whether it had been stopped, or ended on
    its own); ``answered`` False: no answer within the wait, the request is recorded on
    the run's row and honoured at that replica's next heartbeat (it may be busy)."""

    conv_id: str
    replica: str
    stopped: bool
    writes_in_flight: list[dict[str, str]] = field(default_factory=list)
    ended: bool = False
    answered: bool = True
    elapsed_s: float = 0.0


def info_of_row(row: RunSignal) -> RunInfo:
    return RunInfo(
        row.conv_id, row.run_id, row.replica, row.user_id, row.started_at, row.stop_requested_at
    )


def answer_of_payload(
    conv_id: str, replica: str, payload: dict[str, Any], elapsed_s: float
) -> StopAnswer:
    """The answer a notification on ``ss_tools_run_answer`` carries."""
    return StopAnswer(
        conv_id,
        replica,
        stopped=bool(payload.get("stopped")),
        writes_in_flight=list(payload.get("writes") or []),
        ended=bool(payload.get("ended")),
        elapsed_s=elapsed_s,
    )


def answer_of_row(conv_id: str, row: RunSignal | None, elapsed_s: float) -> StopAnswer:
    """The answer the run's row shows at the end of the wait (None: the run ended)."""
    if row is None:  # the run ended (or its replica died), how is unknown
        return StopAnswer(conv_id, "", stopped=False, ended=True, elapsed_s=elapsed_s)
    if row.stopped_at is None:  # asked, recorded, not answered yet: accepted
        return StopAnswer(conv_id, row.replica, False, answered=False, elapsed_s=elapsed_s)
    writes = list(row.writes_in_flight or [])
    return StopAnswer(conv_id, row.replica, True, writes, elapsed_s=elapsed_s)


class RunSignals(Protocol):
    """What the core calls (see the module)."""

    async def listen(self, on_stop: OnStop) -> None: ...
    async def started(self, conv_id: str, *, user_id: str | None) -> RunTicket: ...
    async def finished(self, ticket: RunTicket, *, stopped: bool = False) -> None: ...
    async def running(self, conv_id: str) -> RunInfo | None: ...
    async def request_stop(
        self, conv_id: str, *, by: str | None = None, wait_s: float = STOP_WAIT_S
    ) -> StopAnswer | None: ...
    async def aclose(self) -> None: ...


class LocalRunSignals:
    """One process (SQLite): nothing to tell anyone; no run is elsewhere."""

    async def listen(self, on_stop: OnStop) -> None:
        return None

    async def started(self, conv_id: str, *, user_id: str | None) -> RunTicket:
        return RunTicket(conv_id, uuid.uuid4().hex, user_id)

    async def finished(self, ticket: RunTicket, *, stopped: bool = False) -> None:
        return None

    async def running(self, conv_id: str) -> RunInfo | None:
        return None

    async def request_stop(
        self, conv_id: str, *, by: str | None = None, wait_s: float = STOP_WAIT_S
    ) -> StopAnswer | None:
        return None

    async def aclose(self) -> None:
        return None
