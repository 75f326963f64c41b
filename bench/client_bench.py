"""Per-call overhead of SupersetClient.get_json vs a raw keep-alive httpx request.

    python -m bench.client_bench                    # starts a sandbox (dev), measures, stops it
    python -m bench.client_bench --env-file F --env dev   # against a configured environment
    python -m bench.client_bench -n 500 --path /api/v1/dashboard/

Both sides use one keep-alive connection pool, the same bearer token and the same URL;
calls alternate (client, raw, client, raw, …) so drift hits both equally. A second pass
runs both against an in-process ``httpx.MockTransport`` to isolate the client's own
cost (auth bookkeeping, header building, error mapping). Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx
from pydantic import SecretStr

from app.superset.client import SupersetClient
from app.superset.environments import Environment
from app.superset.registry import load_environments


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _pair(
    n: int, ours: Callable[[], Awaitable[object]], raw: Callable[[], Awaitable[object]]
) -> dict[str, float]:
    for _ in range(10):  # warm-up: login, CSRF-free reads, connection set-up
        await ours()
        await raw()
    t_ours: list[float] = []
    t_raw: list[float] = []
    for _ in range(n):
        for fn, sink in ((ours, t_ours), (raw, t_raw)):
            started = time.perf_counter()
            await fn()
            sink.append((time.perf_counter() - started) * 1000)
    p50_ours, p50_raw = statistics.median(t_ours), statistics.median(t_raw)
    return {
        "client_p50_ms": round(p50_ours, 3),
        "client_p95_ms": round(_pct(t_ours, 0.95), 3),
        "raw_p50_ms": round(p50_raw, 3),
        "raw_p95_ms": round(_pct(t_raw, 0.95), 3),
        "ratio_p50": round(p50_ours / p50_raw, 3),
        "overhead_p50_ms": round(p50_ours - p50_raw, 3),
    }


async def against_superset(env: Environment, path: str, n: int) -> dict[str, float]:
    client = SupersetClient(env)
    token = await client._ensure_token()  # the same token for the raw side
    raw = httpx.AsyncClient(
        base_url=env.url,
        headers={"Accept": "application/json", "Authorization": f"Bearer {token}"},
        timeout=30,
    )

    async def ours() -> object:
        return await client.get_json(path)

    async def plain() -> object:
        resp = await raw.get(path)
        resp.raise_for_status()
        return resp.json()

    try:
        return await _pair(n, ours, plain)
    finally:
        await client.aclose()
        await raw.aclose()


async def against_mock(n: int) -> dict[str, float]:
    body = {"count": 1, "result": [{"id": 1, "dashboard_title": "Sales Overview"}]}

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v1/security/login":
            return httpx.Response(200, json={"access_token": "a", "refresh_token": "r"})
        return httpx.Response(200, json=body)

    transport = httpx.MockTransport(handler)
    env = Environment(id="dev", url="http://mock", password=SecretStr("x"), tier="dev")
    client = SupersetClient(env, transport=transport)
    raw = httpx.AsyncClient(
        base_url=env.url, transport=transport, headers={"Accept": "application/json"}
    )

    async def plain() -> object:
        return (await raw.get("/api/v1/dashboard/")).json()

    try:
        return await _pair(n, lambda: client.get_json("/api/v1/dashboard/"), plain)
    finally:
        await client.aclose()
        await raw.aclose()


def _print(label: str, r: dict[str, float]) -> None:
    print(
        f"{label:9} client p50 {r['client_p50_ms']:8.3f} ms  p95 {r['client_p95_ms']:8.3f} ms | "
        f"raw p50 {r['raw_p50_ms']:8.3f} ms  p95 {r['raw_p95_ms']:8.3f} ms | "
        f"ratio {r['ratio_p50']:.3f}  overhead {r['overhead_p50_ms']:+.3f} ms",
        flush=True,
    )


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.client_bench")
    ap.add_argument("--env-file", type=Path, help="environments.toml (default: start a sandbox)")
    ap.add_argument("--env", default="dev")
    ap.add_argument("--path", default="/api/v1/dashboard/")
    ap.add_argument("-n", type=int, default=200)
    args = ap.parse_args(argv)

    sandbox = None
    if args.env_file is None:
        from app.sandbox import ensure_bootstrapped, seed_sandbox, start_sandbox
        from app.sandbox.common import quiet

        ensure_bootstrapped(quiet)
        base = Path(tempfile.mkdtemp(prefix="client-bench-"))
        sandbox = start_sandbox(envs=("dev",), base_dir=base, progress=quiet)
        seed_sandbox(sandbox, quiet)
        args.env_file = sandbox.write_environments_file(base / "environments.toml")
    try:
        env = load_environments(args.env_file).get(args.env)
        print(f"SupersetClient.get_json vs raw httpx, GET {args.path}, N={args.n} each")
        real = asyncio.run(against_superset(env, args.path, args.n))
        _print("superset", real)
        mock = asyncio.run(against_mock(args.n * 5))
        _print("in-proc", mock)
    finally:
        if sandbox is not None:
            sandbox.stop()
    result = {f"superset_{k}": v for k, v in real.items()}
    result |= {f"mock_{k}": v for k, v in mock.items()}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
