"""One run per conversation across replicas: a conversation's run holds its lock.

The seam (the agent core calls it; nothing else does)::

    locks = run_locks_for(settings.db_url)          # one per event loop, beside TurnRegistry
    async with locks.run(conv_id, wait_s=0) as lease:   # after TurnRegistry.begin()
        if lease is None:                           # another replica runs this conversation
            raise RequestRefused(409, "conversation_busy", ...)
        ...                                         # the run, to its very end (writes too)
    # or by hand: lease = await locks.try_acquire(conv_id) / await locks.acquire(conv_id,
    #             wait_s=5) ... await locks.release(lease)    (release is idempotent)
    await locks.aclose()                            # core shutdown

**PostgreSQL** (:class:`PgRunLocks`): ``pg_try_advisory_lock(key)``, ``key`` a stable
64-bit hash of the conversation id (:func:`lock_key`: blake2b, 8 bytes, signed). It is a
*session-level* lock, not a transaction-level one (``pg_try_advisory_xact_lock``): a
run spans many transactions (checkpoint writes through the checkpointer's pool, audit
commits, task rows) on other connections, and a transaction-level lock ends with the
transaction that took it. A session-level lock stays until it is unlocked or its server
session ends, so it is **never held by a dead process**: when a replica dies (SIGKILL,
lost host), PostgreSQL ends its session and frees every lock it held (at once for a
closed socket; after the TCP keepalive for a vanished host).

The locks live on one *dedicated* connection per process and event loop (not one per
run): a run per connection would cost a server backend per running conversation and
exhaust ``max_connections`` under load (200 concurrent conversations against the
default 100), while one session can hold any number of advisory locks. The lock
queries are short and serialised on that connection (about 0.1 ms each). The price:
if that one connection breaks, every lease of the process is lost at once. That is
noticed at the next lock call or by the watchdog (``check_every_s``), which reconnects,
takes the conversations' locks again where nobody else took them meanwhile, and sets
``lease.lost`` for the others (the core can then stop those runs). Leases are exclusive
within the process too: a second ``try_acquire`` of a conversation this process holds
answers None (a session's advisory locks are re-entrant; ours are not).

A key collision between two conversations (2^-64 per pair) only makes one wait for the
other. Keys share PostgreSQL's advisory lock space with ``app.store.db.INIT_LOCK_KEY``.

**SQLite** (one process): :class:`LocalRunLocks`, a no-op that always grants a lease;
the in-process ``TurnRegistry`` already runs one busy period per conversation.

A failure to reach PostgreSQL raises :class:`app.errors.CoordinationError` (a run is
refused rather than run unlocked); releasing never raises.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol

from app.errors import CoordinationError
from app.store.pg_link import LINK_ERRORS, connect, is_postgres

log = logging.getLogger("ss_tools.replicas")

_PERSON = b"ss-tools-run"  # blake2b personalisation: these keys are ours alone
CHECK_EVERY_S = 5.0  # the watchdog's look at the lock connection while leases are held
FIRST_RETRY_S, MAX_RETRY_S = 0.02, 0.2  # a bounded wait polls with this backoff


def lock_key(conv_id: str) -> int:
    """The conversation's advisory lock key: a stable signed 64-bit hash of its id."""
    digest = hashlib.blake2b(conv_id.encode("utf-8"), digest_size=8, person=_PERSON).digest()
    return int.from_bytes(digest, "big", signed=True)


@dataclass(eq=False)
class Lease:
    """A conversation's run lock, held until :meth:`RunLocks.release`. ``lost`` is set when
    the process lost it while running (its lock connection broke and another replica took
    the conversation meanwhile); ``waited_s``: how long acquiring took."""

    conv_id: str
    key: int
    waited_s: float = 0.0
    released: bool = False
    lost: asyncio.Event = field(default_factory=asyncio.Event)


class RunLocks(Protocol):
    """What the core calls (see the module)."""

    async def try_acquire(self, conv_id: str) -> Lease | None:
        """The lock now, or None when another run holds it."""
        ...

    async def acquire(self, conv_id: str, *, wait_s: float) -> Lease | None:
        """The lock, waiting up to ``wait_s`` seconds for it; None when still busy."""
        ...

    async def release(self, lease: Lease) -> None:
        """Free the lock (idempotent; never raises)."""
        ...

    def run(
        self, conv_id: str, *, wait_s: float = 0.0
    ) -> AbstractAsyncContextManager[Lease | None]:
        """``async with locks.run(conv_id) as lease``: acquired (or None), released at exit."""
        ...

    async def aclose(self) -> None:
        """Release everything and close (core shutdown)."""
        ...


class _RunMixin:
    """``run()`` and ``acquire()`` from ``try_acquire`` / ``release``."""

    async def try_acquire(self, conv_id: str) -> Lease | None:
        raise NotImplementedError

    async def release(self, lease: Lease) -> None:
        raise NotImplementedError

    async def acquire(self, conv_id: str, *, wait_s: float) -> Lease | None:
        started = time.monotonic()
        deadline, pause = started + max(0.0, wait_s), FIRST_RETRY_S
        while True:
            lease = await self.try_acquire(conv_id)
            if lease is not None:
                lease.waited_s = time.monotonic() - started
                return lease
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            await asyncio.sleep(min(pause, left))
            pause = min(pause * 2, MAX_RETRY_S)

    @asynccontextmanager
    async def run(self, conv_id: str, *, wait_s: float = 0.0) -> AsyncIterator[Lease | None]:
        lease = await (
            self.acquire(conv_id, wait_s=wait_s) if wait_s > 0 else self.try_acquire(conv_id)
        )
        try:
            yield lease
        finally:
            if lease is not None:
                await self.release(lease)


class LocalRunLocks(_RunMixin):
    """One process (SQLite): every lease is granted; the TurnRegistry serialises."""

    async def try_acquire(self, conv_id: str) -> Lease | None:
        return Lease(conv_id, lock_key(conv_id))

    async def release(self, lease: Lease) -> None:
        lease.released = True

    async def aclose(self) -> None:
        return None


class PgRunLocks(_RunMixin):
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

    # ---- the seam ----------------------------------------------------------------------
    async def try_acquire(self, conv_id: str) -> Lease | None:
        key = lock_key(conv_id)
        async with self._serial():
            if key in self._held:
                return None
            if not await self._query_bool("SELECT pg_try_advisory_lock(%s)", key):
                return None
            lease = self._held[key] = Lease(conv_id, key)
        self._watch()
        return lease

    async def release(self, lease: Lease) -> None:
        if lease.released:
            return
        lease.released = True
        async with self._serial():
            if self._held.get(lease.key) is not lease:
                return  # lost with a broken connection: nothing to unlock
            del self._held[lease.key]
            if self._conn is None or self._conn.closed:
                return
            try:
                await self._conn.execute("SELECT pg_advisory_unlock(%s)", (lease.key,))
            except LINK_ERRORS as exc:  # the lock ended with its session, the others too
                log.warning("run lock of %s: connection lost at release (%s)", lease.conv_id, exc)
                await self._drop_connection()
                if self._held:
                    await self._recover_quietly()

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


def run_locks_for(db_url: str, **options: Any) -> RunLocks:
    """The run locks for the app's database: :class:`PgRunLocks` on PostgreSQL, else
    :class:`LocalRunLocks`."""
    return PgRunLocks(db_url, **options) if is_postgres(db_url) else LocalRunLocks()
