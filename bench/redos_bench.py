"""Hostile chat messages against the offline planner: ``python -m bench.redos_bench``.

A person can send up to ``message_max_chars`` (20,000) characters. Each case below is a
message of a shape that makes a backtracking regex, or a scan repeated per match, take
more than linear time (a long run of spaces after SQL or after "dashboard", thousands of
numbers or environment names, one endless word, …). Each case runs in a child process of
its own, at growing sizes up to 20,000 characters, with a CPU-time cap per case: one
message's planning is :func:`app.planner.plan_reply` on the prompt a turn gives it
(the system text with the turn's facts, then the message), timed with the child's CPU
clock.

When a case passes the cap before 20,000 characters, its time at 20,000 is extrapolated
from the last two sizes measured (``t(n) = c·n^k``, ``k`` from their ratio) and printed
with a ``~``. Prints a table, then one line of JSON: the worst case's seconds at 20,000
characters, measured or extrapolated.

    python -m bench.redos_bench                      # every case, cap 20 s a case
    python -m bench.redos_bench --cap 5 --sizes 1000,2000,4000,20000
    python -m bench.redos_bench --case spaces_please
    python -m bench.redos_bench --loop               # the event loop's longest stall

``--loop`` plans the worst case at 20,000 characters as the product does (the offline
planner with its runner: a child process, ``app.planner_runs``) and in the event loop's
own thread (as before the runner), and prints the longest gap between two ticks of a
1 ms timer on the loop meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

MESSAGE_CAP = 20_000
SIZES = (500, 1_000, 2_000, 4_000, 8_000, 20_000)


def _fit(n: int, head: str, body: str, tail: str = "") -> str:
    """``head`` + ``body`` repeated + ``tail``, exactly ``n`` characters."""
    room = max(0, n - len(head) - len(tail))
    return head + (body * (room // len(body) + 1))[:room] + tail


#: name -> message of ``n`` characters
CASES: dict[str, Callable[[int], str]] = {
    "spaces_please": lambda n: _fit(n, "select 1", " ", "x"),
    "spaces_please_comma": lambda n: _fit(n, "select 1,", " ", "x"),
    "spaces_on_database": lambda n: _fit(n, "select 1 on database", " ", "!"),
    "spaces_in_env": lambda n: _fit(n, "select 1 in", " ", "!"),
    "please_repeated": lambda n: _fit(n, "select 1", " please"),
    "on_db_repeated": lambda n: _fit(n, "select 1", " on db 1"),
    "dashboard_spaces": lambda n: _fit(n, "check dashboard", " ", "x"),
    "dashboard_id_spaces": lambda n: _fit(n, "check dashboard 1", " ", "x"),
    "hash_spaces": lambda n: _fit(n, "check #", " ", "x"),
    "dashboard_ru_spaces": lambda n: _fit(n, "проверь дашборд", " ", "x"),
    "id_list": lambda n: _fit(n, "check dashboards ", "1 , "),
    "bare_numbers": lambda n: _fit(n, "check ", "1 "),
    "numbers_after_limit": lambda n: _fit(n, "check limit ", "1 "),
    "env_mentions": lambda n: _fit(n, "find sales ", "prod "),
    "env_mentions_ru": lambda n: _fit(n, "найди продажи ", "на проде "),
    "one_word": lambda n: _fit(n, "find ", "a"),
    "one_word_dots": lambda n: _fit(n, "find ", "a.-"),
    "capitalised_words": lambda n: _fit(n, "check the health of ", "Abc "),
    "dashboard_words": lambda n: _fit(n, "check ", "dashboard "),
    "quotes": lambda n: _fit(n, "find ", '"'),
    "backticks": lambda n: _fit(n, "format ", "`"),
    "single_quotes": lambda n: _fit(n, "find ", "a'"),
    "tabs_newlines": lambda n: _fit(n, "select 1", "\t\n ", "x"),
    "backup_ids": lambda n: _fit(n, "restore backup ", "1a."),
    "backup_spaces": lambda n: _fit(n, "restore backup", " ", "!"),
    "task_spaces": lambda n: _fit(n, "status of task", " ", "!"),
    "maintenance_for": lambda n: _fit(n, "start maintenance on dev ", "for "),
    "mapping_pairs": lambda n: _fit(n, "migrate dashboard 1 to prod map ", "a=b "),
    "words_with_spaces": lambda n: _fit(n, "find ", "a "),
    "colons": lambda n: _fit(n, "commit ", ": "),
    "names_after_table": lambda n: _fit(n, "create dataset ", "table "),
    "explore_words": lambda n: _fit(n, "show tables in ", "x "),
    "sql_fence_open": lambda n: _fit(n, "run ```sql select 1", " "),
    "russian_words": lambda n: _fit(n, "найди ", "маркетингу "),
}

_CHILD = r"""
import json, sys, time
from langchain_core.messages import HumanMessage, SystemMessage
from app.agent.prompt import build_system_prompt
from app.tools.catalog import TOOL_CATALOG
from app.planner import plan_reply
from app.planner.known import Known
from bench.redos_bench import CASES

name, sizes = sys.argv[1], [int(s) for s in sys.argv[2].split(",")]
envs = [{"id": "dev", "tier": "dev"}, {"id": "staging", "tier": "staging"},
        {"id": "prod", "tier": "prod"}]
known = Known(TOOL_CATALOG)
bound = tuple(TOOL_CATALOG)
plan_reply([HumanMessage(CASES[name](200))], bound, known)  # warm: lazy imports, caches
for n in sizes:
    text = CASES[name](n)
    system = build_system_prompt(selected_env_id="dev", environments=envs, lang="en",
                                 uicontext_block="")
    messages = [SystemMessage(system), HumanMessage(text)]
    start = time.process_time()
    plan_reply(messages, bound, known)
    print(json.dumps({"n": len(text), "s": time.process_time() - start}), flush=True)
"""


def run_case(name: str, sizes: tuple[int, ...], cap_s: float) -> list[tuple[int, float]]:
    """(size, CPU seconds) for each size measured before ``cap_s`` of wall time ran out."""
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, name, ",".join(map(str, sizes))],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    done: list[tuple[int, float]] = []
    deadline = time.monotonic() + cap_s + 10  # + the child's imports
    try:
        import selectors

        with selectors.DefaultSelector() as sel:
            sel.register(child.stdout, selectors.EVENT_READ)
            while len(done) < len(sizes):
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(timeout=left):
                    break
                line = child.stdout.readline()
                if not line:
                    break
                row = json.loads(line)
                done.append((row["n"], row["s"]))
    finally:
        child.kill()
        child.wait()
    return done


def at_cap(done: list[tuple[int, float]]) -> tuple[float, bool]:
    """(seconds at MESSAGE_CAP, extrapolated?)."""
    if done and done[-1][0] >= MESSAGE_CAP:
        return done[-1][1], False
    if len(done) < 2:
        return math.inf, True
    (n1, t1), (n2, t2) = done[-2], done[-1]
    k = max(1.0, math.log(max(t2, 1e-6) / max(t1, 1e-6)) / math.log(n2 / n1))
    return t2 * (MESSAGE_CAP / n2) ** k, True


async def _stall(planner: Any, text: str) -> float:
    """The event loop's longest stall (seconds) while ``planner`` answers ``text``."""
    from langchain_core.messages import HumanMessage

    longest, done = 0.0, False

    async def tick() -> None:
        nonlocal longest
        last = time.perf_counter()
        while not done:
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            longest, last = max(longest, now - last), now

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0.01)
    await planner.ainvoke([HumanMessage(text)])
    done = True
    await ticker
    return longest


def loop_stalls(case: str) -> dict[str, float]:
    """The loop's longest stall while the planner reads ``case`` at the message cap:
    in a child process (the product) and in the loop's thread."""
    from app.planner import OfflinePlanner
    from app.planner_runs import close_pools, planner_runner
    from app.tools.catalog import TOOL_CATALOG

    text = CASES[case](MESSAGE_CAP)
    runner = planner_runner(TOOL_CATALOG, budget_s=60.0, workers=1, thread_until_started=False)
    in_child = OfflinePlanner(catalog=TOOL_CATALOG, runner=runner)
    in_loop = OfflinePlanner(catalog=TOOL_CATALOG)
    try:
        asyncio.run(in_child.ainvoke("warm"))  # the child's start is not a stall
        return {
            "child_process": asyncio.run(_stall(in_child, text)),
            "event_loop_thread": asyncio.run(_stall(in_loop, text)),
        }
    finally:
        close_pools()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--cap", type=float, default=20.0, help="seconds a case may run")
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--case", action="append", help="only these cases")
    parser.add_argument("--loop", action="store_true", help="the event loop's longest stall")
    args = parser.parse_args(argv)
    if args.loop:
        case = (args.case or ["backticks"])[0]
        stalls = loop_stalls(case)
        for where, seconds in stalls.items():
            print(f"{case} at {MESSAGE_CAP:,} chars, planned in the {where}: stall {seconds:.3f} s")
        print(json.dumps({"case": case, **stalls}))
        return 0
    sizes = tuple(int(s) for s in args.sizes.split(","))
    worst = ("", 0.0, False)
    print(f"{'case':24} {'measured (chars: CPU s)':52} at {MESSAGE_CAP:,}")
    for name in args.case or list(CASES):
        done = run_case(name, sizes, args.cap)
        seconds, guessed = at_cap(done)
        shown = ", ".join(f"{n}: {s:.3f}" for n, s in done[-3:])
        print(f"{name:24} {shown:52} {'~' if guessed else ' '}{seconds:,.3f} s", flush=True)
        if seconds > worst[1]:
            worst = (name, seconds, guessed)
    print(json.dumps({"worst_case": worst[0], "worst_s": worst[1], "extrapolated": worst[2]}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
