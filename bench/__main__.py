"""``python -m bench``: run the benchmarks, print numbers, end with one line of JSON.

python -m bench            agent overhead (SSE and page paths) + HTTP load at N=50, 200
python -m bench --quick    fewer turns, load at N=50 only
python -m bench --overhead-only / --load-only
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path

from bench.agent_bench import bench_parts, bench_settings, overhead
from bench.load_bench import load


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    result: dict[str, float] = {}
    if "--load-only" not in argv:
        data = Path(tempfile.mkdtemp(prefix="bench-data-"))
        parts = bench_parts(bench_settings(data))
        try:
            result.update(asyncio.run(overhead(parts, turns=20 if quick else 200)))
        finally:
            parts.close()
    if "--overhead-only" not in argv:
        result.update(asyncio.run(load((50,) if quick else (50, 200))))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
