"""Load through nginx: N concurrent conversations (200) against one replica and
against two, each behind Debian's nginx with ``deploy/nginx.conf`` (``tests.nginx``), on a
throwaway PostgreSQL (``tests.pg``), on this machine. Each conversation asks "what can you
do?" (show_capabilities: a real tool, no Superset), as ``bench.load_bench`` does.

    .venv/bin/python -m bench.replica_load [N] [ROUNDS]

Prints, per replica count: the HTTP floor through nginx (``GET /api/health`` at the same
concurrency), p50/p95 time to the first event and to the first agent output, errors (a
stream that did not end with ``done``, or a refusal), and audit rows written against the
expected (rows of one warm-up turn x N): ``lost`` must be 0. ``ROUNDS`` (default 2) runs
of N each; the figures are over all of them. On 2 cores the second replica adds little or
nothing (both compete for the same cores, and nginx and PostgreSQL for them too); the
figure is for bigger machines, and for "nothing is lost".
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from bench.agent_bench import pct
from bench.load_bench import UNLIMITED, RawClient, _audit_count, _http_floor, _one_conversation
from tests.pg import private_database, start_cluster
from tests.replicas.cluster import start_replicas


async def _run(port: int, token: str, db_url: str, n: int, rounds: int) -> dict[str, float]:
    client = RawClient(port)
    before = _audit_count(db_url)
    await _one_conversation(client, token)  # warm-up, and the rows of one turn
    per_turn = _audit_count(db_url) - before
    floor: list[float] = []
    firsts: list[float] = []
    outputs: list[float] = []
    errors = written = 0
    wall = 0.0
    for _ in range(rounds):
        floor += await _http_floor(client, n)
        before = _audit_count(db_url)
        t0 = time.perf_counter()
        results = await asyncio.gather(*[_one_conversation(client, token) for _ in range(n)])
        wall += time.perf_counter() - t0
        firsts += [f for f, _, _ in results if f is not None]
        outputs += [o for _, _, o in results if o is not None]
        errors += sum(1 for _, ok, _ in results if not ok)
        await asyncio.sleep(1.0)  # every turn's rows were committed before its done
        written += _audit_count(db_url) - before
    expected = rounds * n * per_turn
    return {
        "p95_http_floor_ms": round(pct(floor, 95), 1),
        "p50_first_event_ms": round(pct(firsts, 50), 1),
        "p95_first_event_ms": round(pct(firsts, 95), 1),
        "p95_first_output_ms": round(pct(outputs, 95), 1),
        "turns_per_s": round(rounds * n / wall, 1),
        "errors": errors,
        "audit_rows": written,
        "audit_rows_expected": expected,
        "audit_rows_lost": expected - written,
    }


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    cluster = start_cluster()
    figures: dict[int, dict[str, float]] = {}
    try:
        for count in (1, 2):
            with private_database(cluster.url, prefix=f"load{count}") as db_url:
                base = Path(tempfile.mkdtemp(prefix=f"bench-replicas-{count}-"))
                replicas = start_replicas(base, db_url, count=count, **UNLIMITED)
                try:
                    port = urlsplit(replicas.url).port
                    assert port is not None
                    figures[count] = asyncio.run(_run(port, replicas.token(), db_url, n, rounds))
                finally:
                    replicas.stop()
            print(f"[replicas] {count} replica(s), N={n} x {rounds}: {figures[count]}", flush=True)
    finally:
        cluster.stop()
    names = list(figures[1])
    width = max(map(len, names))
    print(f"\n{'':<{width}}  {'1 replica':>12}  {'2 replicas':>12}")
    for name in names:
        print(f"{name:<{width}}  {figures[1][name]:>12}  {figures[2][name]:>12}")


if __name__ == "__main__":
    main()
