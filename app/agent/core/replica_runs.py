"""Runs across replicas: the part of run control (``app.agent.core.control``) that several
app processes on one PostgreSQL share. ``AgentCore`` keeps one :class:`ReplicaRuns` per
event loop beside its ``TurnRegistry``, on PostgreSQL only:
on SQLite (one process) there is none and a run goes through the in-process registry
alone, as before.

* **One run per conversation, across replicas.** Right after ``TurnRegistry.begin`` (the
  in-process busy period) :meth:`ReplicaRuns.claim` takes the conversation's run lock
  (``app.store.run_locks``: a *session-level* PostgreSQL advisory lock on one dedicated
  connection per process, so it dies with the process) and announces the run
  (``app.store.run_signals``: a ``run_signal`` row with a heartbeat). Another replica
  running the conversation makes the claim wait a little (:data:`BUSY_WAIT_S`; an answer
  to a confirmation, already consumed, waits longer: :data:`RESUME_WAIT_S`) and then
  refuse with 409 ``conversation_busy``, before any event. The lock is released, and the
  row deleted, in the registry's close path (``RunControl.release``), after the run's
  graph and bookkeeping have ended.
* **Stop from any replica.** ``AgentCore.cancel`` on a replica that has no local run of
  the conversation asks the shared registry who runs it (:meth:`ReplicaRuns.running`) and
  sends the stop there (:meth:`ReplicaRuns.request_stop`: a row + ``NOTIFY``). The running
  replica's listener calls the core's ``RunControl.stop()`` (:meth:`ReplicaRuns.claim`
  starts listening the first time) and answers its writes in flight; its run's end then
  withdraws a pending confirmation, as a local stop does. The request is on the row from
  the moment it is asked: a running replica too busy to answer within the asker's wait
  honours it at its next heartbeat, and the asker says it *accepted* the stop rather
  than *confirmed* it (``StopReport.confirmed``).
"""

from __future__ import annotations

import asyncio
import logging

from app.agent.core.control import RunControl
from app.agent.core.requests import RequestRefused
from app.errors import CoordinationError
from app.store.db import Database
from app.store.run_coordination import run_locks_for, run_signals_for
from app.store.run_locks import Lease, RunLocks
from app.store.run_signals import OnStop, RunInfo, RunSignals, RunTicket, StopAnswer

replicas_log = logging.getLogger("ss_tools.replicas")

#: How long a turn, a call or a stop's withdrawal waits for another replica's run of the
#: conversation to end before it is refused (409 ``conversation_busy``).
BUSY_WAIT_S = 2.0
#: The same for an answer to a confirmation: it is consumed before its run starts, so it
#: waits out another replica's bookkeeping (the run that showed the card ends under the
#: lock a moment after its ``done``).
RESUME_WAIT_S = 15.0

BUSY_REASON = (
    "This conversation is running a turn on another replica; try again when it has finished."
)
UNREACHABLE_REASON = "The replicas' shared database did not answer; try again in a moment."


def shared_database(db: Database) -> bool:
    """Does ``db`` coordinate replicas (PostgreSQL)?"""
    return db.engine.dialect.name == "postgresql"


class ReplicaRuns:
    """The run locks and stop signals of one event loop (see the module)."""

    def __init__(
        self,
        db: Database,
        on_stop: OnStop,
        *,
        locks: RunLocks | None = None,
        signals: RunSignals | None = None,
    ) -> None:
        self.locks = locks if locks is not None else run_locks_for(db)
        self.signals = signals if signals is not None else run_signals_for(db)
        self._on_stop = on_stop
        self._listening: asyncio.Future[None] | None = None

    async def _listen(self) -> None:
        """Answer other replicas' stops of this loop's runs (once per loop)."""
        if self._listening is None:
            self._listening = asyncio.ensure_future(self.signals.listen(self._on_stop))
        try:
            await asyncio.shield(self._listening)
        except Exception:
            self._listening = None  # the next claim tries again
            raise

    async def claim(self, control: RunControl, *, wait_s: float = BUSY_WAIT_S) -> None:
        """Take ``control``'s conversation for this replica: its lock (waiting up to
        ``wait_s`` for another replica's run to end) and its ``run_signal`` row; both are
        given back by ``control.release`` (the registry's close path). Raises 409
        ``conversation_busy``, or 503 ``coordination_unavailable`` when PostgreSQL does
        not answer (a run is refused rather than run without its lock)."""
        conv_id = control.conv_id
        try:
            await self._listen()
            lease = await self.locks.acquire(conv_id, wait_s=wait_s)
        except CoordinationError as exc:
            replicas_log.warning("run lock of %s: %s", conv_id, exc)
            raise RequestRefused(503, "coordination_unavailable", UNREACHABLE_REASON) from None
        if lease is None:
            raise RequestRefused(409, "conversation_busy", BUSY_REASON)
        try:
            ticket = await self.signals.started(conv_id, user_id=control.owner)
        except BaseException as exc:
            await self.locks.release(lease)
            if isinstance(exc, Exception):
                replicas_log.warning("announcing the run of %s failed: %r", conv_id, exc)
                raise RequestRefused(503, "coordination_unavailable", UNREACHABLE_REASON) from None
            raise
        control.release = lambda: self._release(lease, ticket, stopped=control.stopped)

    async def _release(self, lease: Lease, ticket: RunTicket, *, stopped: bool) -> None:
        """The run ended: its row goes (so nobody asks it to stop; one still waiting hears
        whether it had been stopped), then its lock."""
        try:
            await self.signals.finished(ticket, stopped=stopped)
        except Exception as exc:  # the row goes stale and a heartbeat deletes it
            replicas_log.warning("run row of %s not deleted: %r", ticket.conv_id, exc)
        finally:
            await self.locks.release(lease)

    async def running(self, conv_id: str) -> RunInfo | None:
        """The conversation's run on any live replica, or None."""
        try:
            return await self.signals.running(conv_id)
        except Exception as exc:
            replicas_log.warning("run row of %s unreadable: %r", conv_id, exc)
            raise RequestRefused(503, "coordination_unavailable", UNREACHABLE_REASON) from None

    async def request_stop(self, conv_id: str, *, by: str | None) -> StopAnswer | None:
        """Ask the replica running ``conv_id`` to stop it, and wait for its answer."""
        try:
            return await self.signals.request_stop(conv_id, by=by)
        except Exception as exc:
            replicas_log.warning("stop of %s not sent: %r", conv_id, exc)
            raise RequestRefused(503, "coordination_unavailable", UNREACHABLE_REASON) from None

    async def aclose(self) -> None:
        """Core shutdown (after the runs have ended): the listener, then the locks."""
        try:
            await self.signals.aclose()
        finally:
            await self.locks.aclose()
