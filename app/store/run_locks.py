"""One run per conversation across replicas: a conversation's run holds its lock.

The seam (the agent core calls it; nothing else does)::

    locks = run_locks_for(db)  # app.store.run_coordination; one per loop, beside TurnRegistry
    async with locks.run(conv_id, wait_s=0) as lease:   # after TurnRegistry.begin()
        if lease is None:                           # another replica runs this conversation
            raise RequestRefused(409, "conversation_busy", ...)
        ...                                         # the run, to its very end (writes too)
    # or by hand: lease = await locks.try_acquire(conv_id) / await locks.acquire(conv_id,
    #             wait_s=5) ... await locks.release(lease)    (release is idempotent)
    await locks.aclose()                            # core shutdown

**PostgreSQL** (:class:`~app.store.run_locks_pg.PgRunLocks`):
``pg_try_advisory_lock(key)``, ``key`` a stable 64-bit hash of the conversation id
(:func:`lock_key`: blake2b, 8 bytes, signed). It is a *session-level* lock, not a
transaction-level one (``pg_try_advisory_xact_lock``): a run spans many transactions
(checkpoint writes through the checkpointer's pool, audit commits, task rows) on other
connections, and a transaction-level lock ends with the transaction that took it. A
session-level lock stays until it is unlocked or its server session ends, so it is
**never held by a dead process**: when a replica dies (SIGKILL, lost host), PostgreSQL
ends its session and frees every lock it held (at once for a closed socket; after the
TCP keepalive for a vanished host).

The locks live on one *dedicated* connection per process and event loop (not one per
run): a run per connection would cost a server backend per running conversation and
exhaust ``max_connections`` under load (200 concurrent conversations against the
default 100), while one session can hold any number of advisory locks. The lock
queries are short and serialised on that connection (about 0.1 ms each). The price:
if that one connection breaks, every lease of the process is lost at once. That is
noticed at the next lock call, at a release, or by the watchdog (``check_every_s``),
which reconnects, takes the conversations' locks again where nobody else took them
meanwhile, and sets ``lease.lost`` for the others (the core can then stop those runs).
Leases are exclusive within the process too: a second ``try_acquire`` of a conversation
this process holds answers None (a session's advisory locks are re-entrant; ours are
not).

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
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Protocol

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


class LockBase:
    """What every kind of run locks shares: ``acquire()`` (a bounded wait) and ``run()``
    (the context manager), both from its ``try_acquire`` / ``release``."""

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


class LocalRunLocks(LockBase):
    """One process (SQLite): every lease is granted; the TurnRegistry serialises."""

    async def try_acquire(self, conv_id: str) -> Lease | None:
        return Lease(conv_id, lock_key(conv_id))

    async def release(self, lease: Lease) -> None:
        lease.released = True

    async def aclose(self) -> None:
        return None
