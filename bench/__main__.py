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

from app.settings import Settings
from bench.agent_bench import bench_parts, overhead
from bench.load_bench import load


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    result: dict[str, float] = {}
    if "--load-only" not in argv:
        data = Path(tempfile.mkdtemp(prefix="bench-data-"))
        settings = Settings(  # throwaway state of its own, whatever the shell says
            dev=True,
            data_dir=data,
            database_url=f"sqlite:///{data / 'ss_tools.db'}",
            environments_file=data / "environments.toml",
        )
        parts = bench_parts(settings)
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
