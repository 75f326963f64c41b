"""Time from nothing to a running, seeded Superset sandbox (dev + prod), cold and warm.

    python -m bench.sandbox_bench                  # cold in a fresh cache dir, then warm
    python -m bench.sandbox_bench --no-pip-cache   # cold without pip's wheel/HTTP cache
    python -m bench.sandbox_bench --cache-dir DIR  # use (and keep) DIR as the cache
    python -m bench.sandbox_bench --warm-only      # only the warm path (default cache)

Cold = empty sandbox cache: venv + pip install, bootstrap (db upgrade, create-admin,
init), start, seed over REST (create on dev, export/import to prod), cache the seeded
DBs. Warm = the same cache again: copy the seeded DBs, start, idempotent seed + verify.
Prints one line per phase and ends with one line of JSON. Not part of the test suite
(the cold path downloads ~300 MB and takes ~1.5 min).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from app.sandbox import CachePaths, ensure_bootstrapped, ensure_installed, seed_sandbox
from app.sandbox.common import quiet
from app.sandbox.instances import start_sandbox

T = TypeVar("T")


def _timed(results: dict[str, float], key: str, fn: Callable[[], T]) -> T:
    started = time.perf_counter()
    value = fn()
    results[key] = round(time.perf_counter() - started, 2)
    print(f"  {key:32} {results[key]:8.2f} s", flush=True)
    return value


def _rss_mb(pid: int) -> float:
    """Resident memory of a process and its children, in MB (from /proc)."""
    total_kb = 0
    pids = [pid]
    children = Path(f"/proc/{pid}/task/{pid}/children")
    if children.exists():
        pids += [int(p) for p in children.read_text().split()]
    for p in pids:
        for line in Path(f"/proc/{p}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total_kb += int(line.split()[1])
    return round(total_kb / 1024, 1)


def _dir_mb(path: Path) -> float:
    return round(sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 2**20, 1)


def run_once(label: str, paths: CachePaths, results: dict[str, float]) -> None:
    """One pass from the given cache state to two seeded instances, then stop them."""
    print(f"{label}:", flush=True)
    started = time.perf_counter()
    _timed(results, f"{label}_install_s", lambda: ensure_installed(quiet, paths))
    _timed(results, f"{label}_bootstrap_s", lambda: ensure_bootstrapped(quiet, paths))
    run_dir = Path(tempfile.mkdtemp(prefix=f"sandbox-bench-{label}-"))
    sandbox = _timed(
        results,
        f"{label}_start_s",
        lambda: start_sandbox(("dev", "prod"), base_dir=run_dir, progress=quiet, paths=paths),
    )
    try:
        _timed(results, f"{label}_seed_s", lambda: seed_sandbox(sandbox, quiet))
        results[f"{label}_total_s"] = round(time.perf_counter() - started, 2)
        print(f"  {label + '_total_s':32} {results[label + '_total_s']:8.2f} s", flush=True)
        for env in sandbox.environments:
            results[f"rss_{env.id}_mb"] = _rss_mb(env.pid)
    finally:
        sandbox.stop()
        shutil.rmtree(run_dir, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sandbox_bench")
    parser.add_argument("--cache-dir", help="cache dir to use and keep (default: a fresh one)")
    parser.add_argument("--warm-only", action="store_true", help="skip the cold pass")
    parser.add_argument("--no-pip-cache", action="store_true", help="cold pip without cache")
    args = parser.parse_args(argv)
    if args.no_pip_cache:
        os.environ["PIP_NO_CACHE_DIR"] = "1"  # inherited by the pip subprocess
    results: dict[str, float] = {}
    if args.warm_only:
        paths = CachePaths(Path(args.cache_dir)) if args.cache_dir else CachePaths.default()
        run_once("warm", paths, results)
    else:
        root = Path(args.cache_dir or tempfile.mkdtemp(prefix="sandbox-bench-cache-"))
        root.mkdir(parents=True, exist_ok=True)
        if any(root.iterdir()):
            print(f"{root} is not empty; the cold pass needs an empty cache dir", file=sys.stderr)
            return 2
        paths = CachePaths(root)
        try:
            run_once("cold", paths, results)
            results["cache_mb"] = _dir_mb(root)
            run_once("warm", paths, results)
        finally:
            if not args.cache_dir:
                shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
