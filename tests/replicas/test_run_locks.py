"""One run per conversation across replicas: the run lock on a real
PostgreSQL, two lock holders standing for two replicas (each its own session), and the
SQLite no-op."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import pytest

from app.errors import CoordinationError
from app.store.db import Database
from app.store.run_coordination import run_locks_for
from app.store.run_locks import Lease, LocalRunLocks, lock_key
from app.store.run_locks_pg import PgRunLocks
from tests.replicas.conftest import terminate
from tests.waiting import WAIT_S, until

pg = pytest.mark.postgres


def conv() -> str:
    return f"conv-{uuid.uuid4().hex[:8]}"


@pytest.fixture
async def replicas(pg_db_url: str) -> Any:
    """Two replicas' run locks on one database (watchdogs fast, for the lost-lease test)."""
    a, b = PgRunLocks(pg_db_url, check_every_s=0.05), PgRunLocks(pg_db_url, check_every_s=0.05)
    yield a, b
    await a.aclose()
    await b.aclose()


async def held(locks: PgRunLocks) -> tuple[str, Lease]:
    """A new conversation, and its lock taken by ``locks``."""
    c = conv()
    lease = await locks.try_acquire(c)
    assert lease is not None
    return c, lease


def backend_pid(locks: PgRunLocks) -> int:
    return int(locks._conn.info.backend_pid)


@pg
async def test_a_second_replica_cannot_run_a_conversation_another_one_runs(replicas) -> None:
    a, b = replicas
    c, lease = await held(a)
    assert a.held == [c]
    assert await b.try_acquire(c) is None  # busy elsewhere: the core answers 409
    assert await b.try_acquire(conv()) is not None  # another conversation is free
    await a.release(lease)
    again = await b.try_acquire(c)
    assert again is not None and again.conv_id == c


@pg
async def test_a_dead_replicas_lock_is_free_for_the_others(replicas, pg_admin) -> None:
    a, b = replicas
    c, lease = await held(a)
    assert await b.try_acquire(c) is None
    terminate(pg_admin, backend_pid(a))  # the replica's session ends as when it dies
    taken = await b.try_acquire(c)
    assert taken is not None
    # the first replica, alive after all, learns that it lost the conversation
    await asyncio.wait_for(lease.lost.wait(), timeout=WAIT_S)
    assert a.held == []
    await a.release(lease)  # idempotent, no error
    assert await a.try_acquire(c) is None  # the other replica holds it


@pg
async def test_a_broken_lock_connection_takes_its_locks_again(replicas, pg_admin) -> None:
    a, b = replicas
    c, lease = await held(a)
    terminate(pg_admin, backend_pid(a))
    assert await a.check() == []  # reconnected, nobody took it meanwhile: held again
    assert not lease.lost.is_set() and a.held == [c]
    assert await b.try_acquire(c) is None
    await a.release(lease)
    assert await b.try_acquire(c) is not None


@pg
async def test_a_release_on_a_broken_connection_keeps_the_other_runs_locked(
    replicas, pg_admin
) -> None:
    a, b = replicas
    c1, c2 = conv(), conv()
    first, second = await a.try_acquire(c1), await a.try_acquire(c2)
    assert first is not None and second is not None
    terminate(pg_admin, backend_pid(a))  # both locks die with the session
    await a.release(first)  # finds the connection broken: the other run's lock is retaken
    assert a.held == [c2] and not second.lost.is_set()
    assert await b.try_acquire(c2) is None
    assert await b.try_acquire(c1) is not None


@pg
async def test_a_lock_call_on_a_broken_connection_keeps_the_held_ones(replicas, pg_admin) -> None:
    a, b = replicas
    held = await a.try_acquire(conv())
    assert held is not None
    terminate(pg_admin, backend_pid(a))
    assert await a.try_acquire(conv()) is not None  # reconnects, and retakes the first
    assert await b.try_acquire(held.conv_id) is None


@pg
async def test_the_lock_is_released_when_the_run_ends_even_by_an_error(replicas) -> None:
    a, b = replicas
    c = conv()
    with pytest.raises(RuntimeError):
        async with a.run(c) as lease:
            assert lease is not None
            assert await b.try_acquire(c) is None
            raise RuntimeError("the run failed")
    async with b.run(c) as lease:
        assert lease is not None


@pg
@pytest.mark.parametrize("ticks", [0, 1, 2, 3, 5, 8])
async def test_a_caller_cancelled_while_acquiring_leaves_no_lock_behind(replicas, ticks) -> None:
    a, b = replicas
    c = conv()
    assert await a.try_acquire(conv()) is not None  # the connection is open: ticks matter
    attempt = asyncio.create_task(a.try_acquire(c))
    for _ in range(ticks):
        await asyncio.sleep(0)
    attempt.cancel()
    try:
        lease = await attempt
    except asyncio.CancelledError:
        lease = None
    if lease is not None:  # it finished before the cancel: an ordinary lease
        await a.release(lease)
    # a lock granted to the cancelled caller is released at once: the other replica gets
    # it. (Waiting for ``c`` to leave ``a.held`` first raced: the shielded attempt may not
    # have been granted the lock yet when the loop looked.)
    await until(lambda: b.try_acquire(c), "the cancelled caller's lock stayed held")
    # and the first replica no longer counts it as its own
    await until(lambda: c not in a.held, "the first replica still counts the lock as its own")


@pg
async def test_a_lease_is_exclusive_within_the_process_too(replicas) -> None:
    a, _ = replicas
    c, first = await held(a)
    assert await a.try_acquire(c) is None  # not re-entrant, unlike the server's own locks
    await a.release(first)
    await a.release(first)  # a second release does nothing
    assert await a.try_acquire(c) is not None


@pg
async def test_a_bounded_wait_gets_the_lock_once_it_is_free(replicas) -> None:
    a, b = replicas
    c, lease = await held(a)
    t0 = time.monotonic()
    assert await b.acquire(c, wait_s=0.2) is None  # still busy after the wait
    assert time.monotonic() - t0 >= 0.2  # it waited its while
    asyncio.get_running_loop().call_later(0.15, lambda: asyncio.ensure_future(a.release(lease)))
    got = await b.acquire(c, wait_s=WAIT_S)
    assert got is not None and got.waited_s > 0.1  # it waited for the release


@pg
async def test_closing_frees_every_lock(replicas) -> None:
    a, b = replicas
    c1, c2 = conv(), conv()
    assert await a.try_acquire(c1) and await a.try_acquire(c2)
    await a.aclose()
    assert await b.try_acquire(c1) is not None and await b.try_acquire(c2) is not None


async def test_an_unreachable_database_refuses_the_run() -> None:
    locks = PgRunLocks("postgresql+psycopg://nobody@127.0.0.1:9/none")
    with pytest.raises(CoordinationError) as err:
        await locks.try_acquire(conv())
    assert "unreachable" in str(err.value)
    await locks.aclose()


@pg
async def test_lock_sessions_are_named_for_the_operator(replicas, pg_admin) -> None:
    a, _ = replicas
    assert await a.try_acquire(conv()) is not None
    row = pg_admin.execute(
        "SELECT application_name FROM pg_stat_activity WHERE pid = %s", (backend_pid(a),)
    ).fetchone()
    assert row == ("ss-tools run locks",)


@pytest.mark.parametrize(
    "conv_id",
    [
        "c1",  # a short id
        "a" * 128,  # the longest a conversation id may be
        "разговор",  # not ASCII: hashed as UTF-8
    ],
)
def test_the_key_is_a_signed_64_bit_hash_of_the_conversation(conv_id: str) -> None:
    key = lock_key(conv_id)
    assert -(2**63) <= key < 2**63  # PostgreSQL's bigint
    assert lock_key(conv_id) == key and lock_key(conv_id + "x") != key


def test_the_key_does_not_change_between_releases() -> None:
    # blake2b(b"c1", digest_size=8, person=b"ss-tools-run"), big-endian, signed
    assert lock_key("c1") == -1885172202870910237


async def test_sqlite_runs_in_one_process_and_grants_every_lease(sqlite_file_url: str) -> None:
    locks = run_locks_for(sqlite_file_url)
    assert isinstance(locks, LocalRunLocks)
    async with locks.run("c") as lease:
        assert lease is not None
        assert await locks.try_acquire("c") is not None  # the TurnRegistry serialises
    await locks.aclose()


@pg
def test_postgres_urls_get_advisory_locks(pg_db_url: str) -> None:
    assert isinstance(run_locks_for(pg_db_url), PgRunLocks)
    db = Database.open(pg_db_url)
    assert isinstance(run_locks_for(db), PgRunLocks)
    db.dispose()
    assert isinstance(run_locks_for("postgresql://u@h/d"), PgRunLocks)


@pg
async def test_locks_belong_to_one_event_loop(pg_db_url: str) -> None:
    locks = PgRunLocks(pg_db_url)
    lease = await locks.try_acquire(conv())
    assert lease is not None

    def elsewhere() -> None:
        with pytest.raises(CoordinationError):
            asyncio.run(locks.try_acquire(conv()))

    await asyncio.to_thread(elsewhere)
    await locks.aclose()
