"""Replica coordination on PostgreSQL: what the run lock and a stop from
another replica cost. A throwaway PostgreSQL cluster (``tests.pg``), two replicas' worth
of locks and stop signals (each its own engine and connections) in this process.

    .venv/bin/python -m bench.replica_bench [N]

Prints the first lock (connecting included), ``try_acquire`` + ``release`` uncontended,
a refused ``try_acquire`` (the conversation runs elsewhere), 200 runs taking their locks at
once (serialised on the replica's one lock connection), and ``request_stop`` from
replica B answered by replica A (NOTIFY there and back, two row writes), both in this
process and with A in a process of its own; p50/p95 in ms.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import sys
import time
import uuid
from typing import Any

from app.store.db import Database
from app.store.run_locks_pg import PgRunLocks
from app.store.run_signals_pg import PgRunSignals
from bench.agent_bench import pct
from tests.pg import private_database, start_cluster


def _ms(values: list[float]) -> str:
    return f"p50 {pct(values, 50) * 1000:.2f} ms, p95 {pct(values, 95) * 1000:.2f} ms"


async def locks(url: str, n: int) -> dict[str, str]:
    a, b = PgRunLocks(url), PgRunLocks(url)
    t0 = time.perf_counter()
    first = await a.try_acquire("warm-up")
    connect = time.perf_counter() - t0
    assert first is not None
    await a.release(first)
    await b.release(await b.try_acquire("warm-up") or first)
    taken, refused = [], []
    for i in range(n):
        conv = f"c{i}"
        t0 = time.perf_counter()
        lease = await a.try_acquire(conv)
        taken.append(time.perf_counter() - t0)
        assert lease is not None
        t0 = time.perf_counter()
        assert await b.try_acquire(conv) is None
        refused.append(time.perf_counter() - t0)
        await a.release(lease)
    t0 = time.perf_counter()  # a burst: 200 runs starting at once on one replica
    burst = await asyncio.gather(*(a.try_acquire(f"burst{i}") for i in range(200)))
    burst_s = time.perf_counter() - t0
    assert all(burst)
    await asyncio.gather(*(a.release(lease) for lease in burst if lease is not None))
    await a.aclose()
    await b.aclose()
    return {
        "200 at once, one replica": f"all held after {burst_s * 1000:.1f} ms",
        "first lock (connect)": f"{connect * 1000:.1f} ms",
        "try_acquire, free": _ms(taken),
        "try_acquire, held elsewhere": _ms(refused),
    }


async def stops(url: str, n: int) -> dict[str, str]:
    db_a, db_b = Database.open(url), Database.open(url)
    a, b = PgRunSignals(db_a, replica="bench:a"), PgRunSignals(db_b, replica="bench:b")

    async def on_stop(conv_id: str) -> list[dict[str, str]]:
        return [{"call_id": "c1", "tool_name": "deploy_dashboard"}]

    await a.listen(on_stop)
    await b.listen(on_stop)
    trips, starts = [], []
    for _ in range(n):
        conv = uuid.uuid4().hex
        t0 = time.perf_counter()
        ticket = await a.started(conv, user_id="bench")
        starts.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        answer = await b.request_stop(conv)
        trips.append(time.perf_counter() - t0)
        assert answer is not None and answer.stopped
        await a.finished(ticket)
    await a.aclose()
    await b.aclose()
    db_a.dispose()
    db_b.dispose()
    return {"started (row write)": _ms(starts), "stop round trip B -> A -> B": _ms(trips)}


def _replica_a(url: str, convs: list[str], ready: Any, done: Any) -> None:
    """Replica A in its own process: runs ``convs`` and answers stops until ``done``."""

    async def run() -> None:
        db = Database.open(url)
        a = PgRunSignals(db, replica="bench:proc-a")

        async def on_stop(conv_id: str) -> list[dict[str, str]]:
            return []

        await a.listen(on_stop)
        for conv in convs:
            await a.started(conv, user_id="bench")
        ready.set()
        while not done.is_set():
            await asyncio.sleep(0.05)
        await a.aclose()
        db.dispose()

    asyncio.run(run())


async def _stop_from_b(url: str, convs: list[str]) -> list[float]:
    db = Database.open(url)
    b = PgRunSignals(db, replica="bench:proc-b")
    await b.listen(lambda _c: asyncio.sleep(0, []))
    trips = []
    for conv in convs:
        t0 = time.perf_counter()
        answer = await b.request_stop(conv)
        trips.append(time.perf_counter() - t0)
        assert answer is not None and answer.stopped
    await b.aclose()
    db.dispose()
    return trips


def stops_across_processes(url: str, n: int) -> dict[str, str]:
    ctx = multiprocessing.get_context("spawn")
    ready, done = ctx.Event(), ctx.Event()
    convs = [uuid.uuid4().hex for _ in range(n)]
    proc = ctx.Process(target=_replica_a, args=(url, convs, ready, done))
    proc.start()
    try:
        if not ready.wait(60):
            raise RuntimeError("replica A did not start")
        trips = asyncio.run(_stop_from_b(url, convs))
    finally:
        done.set()
        proc.join(30)
    return {"stop round trip, two processes": _ms(trips)}


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    cluster = start_cluster()
    try:
        with private_database(cluster.url, prefix="bench") as url:
            Database.open(url).dispose()  # the tables
            results = asyncio.run(locks(url, n)) | asyncio.run(stops(url, max(20, n // 5)))
            results |= stops_across_processes(url, max(20, n // 5))
    finally:
        cluster.stop()
    width = max(map(len, results))
    for name, value in results.items():
        print(f"{name:<{width}}  {value}")


if __name__ == "__main__":
    main()
