"""Stop signals between replicas on PostgreSQL: :class:`PgRunSignals` (the seam and the
way a stop travels are described in :mod:`app.store.run_signals`).

Per process and event loop: one listener connection (:class:`~app.store.pg_listener.
PgListener`, channels ``ss_tools_run_stop`` and ``ss_tools_run_answer``) and one heartbeat
task, which also deletes dead replicas' rows and answers a stop of ours whose
notification was missed. Rows are read and written through the app's ``Database``
(short sessions in a thread, ``app.store.run_rows``); a ``NOTIFY`` goes out in the same
transaction as the row change it announces.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from app.replica import replica_id
from app.store import run_rows
from app.store.columns import utcnow
from app.store.db import Database
from app.store.models import RunSignal
from app.store.pg_listener import PgListener
from app.store.run_signals import (
    HEARTBEAT_S,
    STALE_AFTER_S,
    STOP_WAIT_S,
    OnStop,
    RunInfo,
    RunTicket,
    StopAnswer,
    answer_of_payload,
    answer_of_row,
    info_of_row,
)

log = logging.getLogger("ss_tools.replicas")
POLL_S = 0.5  # while waiting for an answer, the row is read this often too


class PgRunSignals:
    """Rows + LISTEN/NOTIFY on PostgreSQL (see the module). Bound to one event loop."""

    def __init__(
        self,
        db: Database,
        *,
        replica: str | None = None,
        heartbeat_s: float = HEARTBEAT_S,
        stale_after_s: float = STALE_AFTER_S,
    ) -> None:
        self.db, self.replica = db, replica or replica_id()
        self._url = db.engine.url.render_as_string(hide_password=False)
        self._heartbeat_s, self._stale_after_s = heartbeat_s, stale_after_s
        self._on_stop: OnStop | None = None
        self._mine: dict[str, RunTicket] = {}
        self._starting: dict[str, RunTicket] = {}  # runs whose rows are being written
        self._ending: set[str] = set()  # run ids of our runs whose rows are being deleted
        self._stopping: dict[str, asyncio.Future[list[dict[str, str]] | None]] = {}  # by run id
        self._waiters: dict[str, list[asyncio.Queue[dict[str, Any]]]] = {}  # answers heard
        self._tasks: set[asyncio.Task[Any]] = set()
        self._listener: PgListener | None = None
        self._beater: asyncio.Task[None] | None = None

    # ---- the seam ------------------------------------------------------------------------
    async def listen(self, on_stop: OnStop) -> None:
        self._on_stop = on_stop
        await self._start()

    async def started(self, conv_id: str, *, user_id: str | None) -> RunTicket:
        """The row first, then the run is ours: a heartbeat meanwhile (which writes a
        missing row of a run of ours again) must not write it at the same moment."""
        await self._start()
        ticket = RunTicket(conv_id, uuid.uuid4().hex, user_id)
        self._starting[conv_id] = ticket  # a stop asked already finds it ours
        try:
            await self._db(
                run_rows.record_start,
                conv_id=conv_id,
                run_id=ticket.run_id,
                replica=self.replica,
                user_id=user_id,
            )
            self._mine[conv_id] = ticket
        finally:
            self._starting.pop(conv_id, None)
        return ticket

    async def finished(self, ticket: RunTicket, *, stopped: bool = False) -> None:
        if self._mine.get(ticket.conv_id) == ticket:
            del self._mine[ticket.conv_id]
        self._stopping.pop(ticket.run_id, None)
        self._ending.add(ticket.run_id)  # a stop asked meanwhile: this end answers it
        try:
            conv_id, run_id = ticket.conv_id, ticket.run_id
            await self._db(run_rows.record_finish, conv_id=conv_id, run_id=run_id, stopped=stopped)
        finally:
            self._ending.discard(ticket.run_id)

    async def running(self, conv_id: str) -> RunInfo | None:
        row = await self._db(run_rows.live_run, conv_id=conv_id, stale_before=self._stale())
        return None if row is None else info_of_row(row)

    async def request_stop(
        self, conv_id: str, *, by: str | None = None, wait_s: float = STOP_WAIT_S
    ) -> StopAnswer | None:
        t0 = time.monotonic()
        await self._start()
        waiter: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._waiters.setdefault(conv_id, []).append(waiter)  # before the NOTIFY goes out
        try:
            row = await self._db(
                run_rows.request_stop,
                conv_id=conv_id,
                by=by,
                asker=self.replica,
                stale_before=self._stale(),
            )
            if row is None:
                return None
            if row.stopped_at is None and row.replica == self.replica:  # ours: no round trip
                writes = await self._answer(conv_id, row.run_id)
                if writes is not None:
                    elapsed = time.monotonic() - t0
                    return StopAnswer(conv_id, self.replica, True, writes, elapsed_s=elapsed)
                row = await self._db(run_rows.live_run, conv_id=conv_id, stale_before=self._stale())
            elif row.stopped_at is None:
                payload = await self._await_answer(waiter, conv_id, row.run_id, wait_s)
                if isinstance(payload, dict):
                    return answer_of_payload(conv_id, row.replica, payload, time.monotonic() - t0)
                row = payload
            return answer_of_row(conv_id, row, time.monotonic() - t0)
        finally:
            waiting = self._waiters.get(conv_id, [])
            if waiter in waiting:
                waiting.remove(waiter)
            if not waiting:
                self._waiters.pop(conv_id, None)

    async def _await_answer(
        self, waiter: asyncio.Queue[dict[str, Any]], conv_id: str, run_id: str, wait_s: float
    ) -> dict[str, Any] | RunSignal | None:
        """The answer's notification for run ``run_id`` (another run's, say an earlier
        one's late "ended", is skipped), or else the row as it is at the end of the wait
        (or as soon as it shows an answer: it is read every POLL_S, for a notification
        that a reconnecting listener missed). A row found gone means the run ended: its
        end's notification, perhaps not read yet, says whether it had been stopped, so it
        is still waited for; None when it does not come (the run ended, how is unknown)."""
        deadline = time.monotonic() + wait_s
        row: RunSignal | None = None
        gone = False
        while True:
            left = deadline - time.monotonic()
            try:
                payload = await asyncio.wait_for(waiter.get(), max(0.0, min(left, POLL_S)))
            except TimeoutError:
                pass
            else:
                if payload.get("run_id") != run_id:
                    continue
                if not payload.get("truncated"):  # else: the writes are in the row
                    return payload
            if not gone:
                row = await self._db(run_rows.live_run, conv_id=conv_id, stale_before=self._stale())
                if row is None or row.run_id != run_id:  # ended (and maybe another began)
                    row, gone = None, True
                elif row.stopped_at is not None:
                    return row
            if time.monotonic() >= deadline:
                return row

    async def aclose(self) -> None:
        if self._listener is not None:
            await self._listener.aclose()
        tasks = [t for t in (self._beater, *self._tasks) if t is not None]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._beater = None

    # ---- answers ---------------------------------------------------------------------------
    async def _answer(self, conv_id: str, run_id: str) -> list[dict[str, str]] | None:
        """The running side: stop our run ``run_id`` of ``conv_id`` (once: a second ask
        waits for the first) and write the answer; its writes in flight, or None when the
        run is not ours (any more) or its stop failed. A row naming us for a run we do not
        have is a leftover (its deletion failed, or it ended just now): it goes, and its
        asker hears the run ended rather than waiting for an answer that never comes."""
        if run_id in self._ending:  # its end, being written, tells the asker how it ended
            return None
        ticket = self._mine.get(conv_id) or self._starting.get(conv_id)
        if ticket is None or ticket.run_id != run_id:
            await self._db(run_rows.record_finish, conv_id=conv_id, run_id=run_id)
            return None
        stopping = self._stopping.get(run_id)
        if stopping is None:
            stopping = self._stopping[run_id] = asyncio.ensure_future(self._stop(ticket))
        return await asyncio.shield(stopping)

    async def _stop(self, ticket: RunTicket) -> list[dict[str, str]] | None:
        if self._on_stop is None:
            log.error("stop of %s asked, but this replica listens with no on_stop", ticket.conv_id)
            return None
        try:
            writes = await self._on_stop(ticket.conv_id)
        except Exception:  # the core's stop failed: logged; the asker hears no answer
            log.exception("stopping %s for another replica failed", ticket.conv_id)
            return None
        if writes is None:  # nothing to stop here: the run is ending; its row goes with it
            return None
        conv_id, run_id = ticket.conv_id, ticket.run_id
        try:
            await self._db(run_rows.record_stopped, conv_id=conv_id, run_id=run_id, writes=writes)
        except (SQLAlchemyError, OSError) as exc:  # stopped all the same: its end says so
            log.warning("stop of %s not recorded (%s)", ticket.conv_id, type(exc).__name__)
        return writes

    def _dispatch(self, channel: str, body: str) -> None:
        try:
            payload = json.loads(body)
            conv_id = str(payload["conv_id"])
        except (ValueError, KeyError, TypeError):
            log.warning("run signals: unreadable notification on %s", channel)
            return
        if channel == run_rows.STOP_CHANNEL:
            if payload.get("replica") == self.replica:
                self._spawn(self._answer(conv_id, str(payload.get("run_id"))))
            return
        for waiter in self._waiters.get(conv_id, []):
            waiter.put_nowait(payload)

    # ---- background: the listener and the heartbeat ----------------------------------------
    async def _start(self) -> None:
        """The listener (its LISTEN in place) and the heartbeat running."""
        if self._listener is None:
            self._listener = PgListener(
                self._url,
                (run_rows.STOP_CHANNEL, run_rows.ANSWER_CHANNEL),
                self._dispatch,
                keepalive_s=self._heartbeat_s,
                purpose="run signals",
                on_connect=self._catch_up,
            )
        if self._beater is None or self._beater.done():
            self._beater = asyncio.create_task(self._beat_loop(), name="run-signals-beat")
        await self._listener.start()

    def _catch_up(self) -> None:
        """After a (re)connection: a heartbeat now answers the stops asked meanwhile."""
        self._spawn(self._beat_once())

    async def _beat_loop(self) -> None:
        while True:
            await asyncio.sleep(self._heartbeat_s)
            try:
                await self._beat_once()
            except (SQLAlchemyError, OSError) as exc:  # the database is down: the next beat
                log.warning("run signals: heartbeat failed (%s)", type(exc).__name__)

    def _runs(self) -> dict[str, tuple[str, str | None]]:
        """Our runs as a heartbeat writes them: conv_id -> (run_id, user_id)."""
        return {c: (t.run_id, t.user_id) for c, t in self._mine.items()}

    async def _beat_once(self) -> None:
        """One heartbeat: dead replicas' rows go, ours are touched (a missing one written
        again), and stops whose notification was missed are answered. A row written again
        for a run that ended meanwhile (its deletion ran beside this beat) is deleted."""
        runs = self._runs()
        pending, rewritten = await self._db(
            run_rows.heartbeat, replica=self.replica, runs=runs, stale_before=self._stale()
        )
        for conv_id in rewritten:
            ticket = self._mine.get(conv_id)
            if ticket is None or ticket.run_id != runs[conv_id][0]:
                await self._db(run_rows.record_finish, conv_id=conv_id, run_id=runs[conv_id][0])
        for conv_id, run_id in pending:  # stops whose notification was missed
            self._spawn(self._answer(conv_id, run_id))

    # ---- helpers ------------------------------------------------------------------------
    def _spawn(self, coro: Awaitable[Any]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _stale(self) -> datetime:
        return utcnow() - timedelta(seconds=self._stale_after_s)

    async def _db(self, fn: Callable[..., Any], **kwargs: Any) -> Any:
        def work() -> Any:
            with self.db.session() as session:
                return fn(session, **kwargs)

        return await asyncio.to_thread(work)
