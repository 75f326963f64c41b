"""Run locks on PostgreSQL: :class:`PgRunLocks`, session-level advisory locks on one
dedicated connection per process and event loop. Why session-level, why one connection,
and what happens when it breaks: :mod:`app.store.run_locks`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from app.errors import CoordinationError
from app.store.pg_link import LINK_ERRORS, connect
from app.store.run_locks import CHECK_EVERY_S, Lease, LockBase, lock_key

log = logging.getLogger("ss_tools.replicas")


class PgRunLocks(LockBase):
    """Session-level advisory locks on one dedicated connection (see the module). Bound
    to the event loop of its first use."""

    def __init__(self, url: str, *, check_every_s: float = CHECK_EVERY_S) -> None:
        self._url = url
        self._check_every_s = check_every_s
        self._conn: Any = None  # psycopg.AsyncConnection, opened on first use
        self._loop: asyncio.AbstractEventLoop | None = None
        self._guard: asyncio.Lock | None = None
        self._held: dict[int, Lease] = {}
        self._watchdog: asyncio.Task[None] | None = None
        self._orphans: set[asyncio.Future[None]] = set()  # releases of cancelled acquires

    # ---- the seam ----------------------------------------------------------------------
    async def try_acquire(self, conv_id: str) -> Lease | None:
        """Shielded: a caller cancelled while the server grants the lock does not leave
        it held by nobody (the lease is released as soon as it is known)."""
        attempt = asyncio.ensure_future(self._try_acquire(conv_id))
        try:
            return await asyncio.shield(attempt)
        except asyncio.CancelledError:
            attempt.add_done_callback(self._release_orphan)
            raise

    def _release_orphan(self, attempt: asyncio.Future[Lease | None]) -> None:
        if attempt.cancelled() or attempt.exception() is not None:
            return
        lease = attempt.result()
        if lease is not None:
            freeing = asyncio.ensure_future(self.release(lease))
            self._orphans.add(freeing)
            freeing.add_done_callback(self._orphans.discard)

    async def release(self, lease: Lease) -> None:
        """Shielded, like ``try_acquire``: a cancelled caller still frees the lock."""
        if lease.released:
            return
        lease.released = True
        await asyncio.shield(self._release(lease))

    async def _try_acquire(self, conv_id: str) -> Lease | None:
        key = lock_key(conv_id)
        async with self._serial():
            if key in self._held:
                return None
            if not await self._query_bool("SELECT pg_try_advisory_lock(%s)", key):
                return None
            lease = self._held[key] = Lease(conv_id, key)
        self._watch()
        return lease

    async def _release(self, lease: Lease) -> None:
        async with self._serial():
            if self._held.get(lease.key) is not lease:
                return  # lost with a broken connection: nothing to unlock
            try:
                if self._conn is None or self._conn.closed:
                    return
                await self._conn.execute("SELECT pg_advisory_unlock(%s)", (lease.key,))
            except LINK_ERRORS as exc:  # the lock ended with its session, the others too
                del self._held[lease.key]
                log.warning("run lock of %s: connection lost at release (%s)", lease.conv_id, exc)
                await self._drop_connection()
                if self._held:
                    await self._recover_quietly()
            finally:
                # only now, once the server has let go: ``held`` never names a lock that
                # another replica cannot take yet (seen as a flaky test under load)
                self._held.pop(lease.key, None)

    async def check(self) -> list[Lease]:
        """Is the lock connection alive? If not: reconnect, take the held conversations'
        locks again, and return the leases lost meanwhile (each ``lost`` is set)."""
        async with self._serial():
            if not self._held:
                return []
            try:
                if self._conn is not None and not self._conn.closed:
                    await self._conn.execute("SELECT 1")
                    return []
            except LINK_ERRORS:
                pass
            return await self._recover()

    async def aclose(self) -> None:
        if self._watchdog is not None:
            self._watchdog.cancel()
            await asyncio.gather(self._watchdog, return_exceptions=True)
            self._watchdog = None
        if self._guard is None:
            return
        async with self._serial():
            for lease in self._held.values():
                lease.released = True
            self._held.clear()
            await self._drop_connection()  # closing the session frees its locks

    @property
    def held(self) -> list[str]:
        """The conversations whose locks this process holds now."""
        return [lease.conv_id for lease in self._held.values()]

    # ---- the connection ------------------------------------------------------------------
    @asynccontextmanager
    async def _serial(self) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        if self._loop is None:
            self._loop, self._guard = loop, asyncio.Lock()
        elif self._loop is not loop:
            raise CoordinationError("run locks used from another event loop: keep one per loop")
        assert self._guard is not None
        async with self._guard:
            yield

    async def _query_bool(self, sql: str, key: int) -> bool:
        """Run a lock query; on a broken connection recover once and retry."""
        for attempt in (1, 2):
            if self._conn is None or self._conn.closed:
                await self._recover()  # a new session, holding again what we held
            try:
                cur = await self._conn.execute(sql, (key,))
                row = await cur.fetchone()
                return bool(row and row[0])
            except LINK_ERRORS as exc:
                if attempt == 2:
                    raise CoordinationError(f"run lock query failed: {type(exc).__name__}") from exc
                log.warning("run locks: connection lost (%s); reconnecting", type(exc).__name__)
                await self._drop_connection()
        raise AssertionError("unreachable")

    async def _recover(self) -> list[Lease]:
        """The session and its locks are gone: reconnect and take the held ones again."""
        await self._drop_connection()
        self._conn = await connect(self._url, purpose="run locks")
        lost = []
        for key, lease in list(self._held.items()):
            try:
                cur = await self._conn.execute("SELECT pg_try_advisory_lock(%s)", (key,))
                row = await cur.fetchone()
            except LINK_ERRORS as exc:  # broken again at once: the server is going away
                await self._drop_connection()
                raise CoordinationError(f"run locks: reconnect failed: {exc}") from exc
            if not (row and row[0]):
                del self._held[key]
                lease.lost.set()
                lost.append(lease)
                log.error(
                    "run lock of %s lost: another replica took the conversation", lease.conv_id
                )
        return lost

    async def _recover_quietly(self) -> None:
        """:meth:`_recover` where nothing may raise (a release): a server still away is
        noticed again by the watchdog or the next lock call."""
        try:
            await self._recover()
        except CoordinationError as exc:
            log.error("run locks: %s", exc)

    async def _drop_connection(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None and not conn.closed:
            try:
                await conn.close()
            except LINK_ERRORS:
                pass  # already broken: closing it is all that was left to do

    def _watch(self) -> None:
        if self._watchdog is None or self._watchdog.done():
            self._watchdog = asyncio.create_task(self._watch_loop(), name="run-locks-watchdog")

    async def _watch_loop(self) -> None:
        while self._held:
            await asyncio.sleep(self._check_every_s)
            try:
                await self.check()
            except CoordinationError as exc:  # the server is down: keep looking
                log.error("run locks: %s", exc)
