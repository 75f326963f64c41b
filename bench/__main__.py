"""``python -m bench``: run the benchmarks, print numbers, end with one line of JSON.

python -m bench            agent overhead + HTTP load (issue 3)
python -m bench --quick    fewer turns, load at N=50 only
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    data = tempfile.mkdtemp(prefix="bench-data-")
    # the in-process part uses its own throwaway state (set before settings are read)
    os.environ.setdefault("SS_TOOLS_DEV", "1")
    os.environ["SS_TOOLS_DATA_DIR"] = data
    os.environ["SS_TOOLS_ENVIRONMENTS_FILE"] = os.path.join(data, "environments.toml")

    from bench.agent_bench import load, overhead

    result: dict[str, float] = {}
    result.update(asyncio.run(overhead(turns=20 if quick else 60)))
    result.update(asyncio.run(load((50,) if quick else (50, 200))))
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
