"""A Stop sent to the other replica, repeated under CPU load: two replicas behind nginx on
a throwaway PostgreSQL (``tests.replicas.long_turns``), CPU-bound processes beside them.

    .venv/bin/python -m bench.replica_stop_stress [N] [BURNERS] [FREEZE_S]

Each of ``N`` repetitions (default 50) starts a long turn through nginx (a read hanging on
a Superset that never answers), asks the replica that does *not* run it to stop it
(``POST /api/agent/cancel``), and waits for the turn's stream to end. ``BURNERS``
(default 2) processes spin ``while True: pass`` the whole time. With ``FREEZE_S`` (default
0), the replica running the turn is also frozen (SIGSTOP) for a random 0..FREEZE_S seconds
from just before each Stop: a replica too busy to answer, so some stops are accepted
rather than confirmed, and are carried out when it runs again.

A wrong answer is one a person would be misled by (``tests.replicas.stop_trials.
StopTrial.wrong``): not 200; ``stopped`` false while the turn was running (it ends only
when stopped); ``confirmed`` and ``status`` that contradict each other; ``stopped`` true
but the turn did not stop (its stream ended without ``stopped``, or not within the
bound). Prints the counts (wrong answers must be 0), how many were confirmed by the
running replica vs accepted (recorded; honoured at its next heartbeat), p50/p95/max of
the answer's time and of the time from Stop to the turn's end, and nginx's error log.
"""

from __future__ import annotations

import random
import signal
import sys
import tempfile
from pathlib import Path

from bench.agent_bench import pct
from tests.pg import start_cluster
from tests.replicas.long_turns import long_turn_cluster
from tests.replicas.stop_trials import (
    STOP_BOUND_S,
    StopTrial,
    cpu_burners,
    stop_from_the_other_replica,
)


def _spread(values: list[float]) -> str:
    if not values:
        return "-"
    return f"p50 {pct(values, 50):.2f} s, p95 {pct(values, 95):.2f} s, max {max(values):.2f} s"


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    burners = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    freeze_max = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0
    chance = random.Random(7)
    # a SIGTERM ends the run through its finally blocks: burners, replicas, PostgreSQL
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    trials: list[StopTrial] = []
    errors = ""
    pg = start_cluster()
    try:
        with (
            cpu_burners(burners),
            tempfile.TemporaryDirectory(prefix="stop-stress-") as base,
            long_turn_cluster(pg.url, Path(base)) as cluster,
        ):
            for i in range(n):
                try:
                    freeze = chance.uniform(0, freeze_max) if freeze_max else 0.0
                    trial = stop_from_the_other_replica(cluster, freeze_s=freeze)
                except AssertionError:
                    for server in cluster.replicas.servers:
                        print(f"--- {server.url}\n{server.tail(60)}", flush=True)
                    print(f"--- nginx\n{cluster.replicas.nginx.tail()}", flush=True)
                    raise
                trials.append(trial)
                why = trial.wrong()
                print(
                    f"{i + 1:>3}/{n} frozen {freeze:4.1f} s, answered {trial.answered_s:5.2f} s, "
                    f"ended {trial.ended_s or -1:5.2f} s, {trial.answer.get('status')}: "
                    + ("WRONG " + why if why else "ok"),
                    flush=True,
                )
            errors = cluster.replicas.nginx.tail()
    finally:
        pg.stop()
    wrong = [t for t in trials if t.wrong()]
    confirmed = sum(1 for t in trials if t.confirmed)
    ends = [t.ended_s for t in trials if t.ended_s is not None]
    print(f"repetitions            {len(trials)} with {burners} CPU-bound processes beside")
    if freeze_max:
        print(f"running replica frozen 0..{freeze_max:g} s around each Stop")
    print(f"wrong answers          {len(wrong)}")
    print(f"confirmed / accepted   {confirmed} / {len(trials) - confirmed}")
    print(f"answer time            {_spread([t.answered_s for t in trials])}")
    print(f"Stop -> turn ended     {_spread(ends)} (bound {STOP_BOUND_S:.0f} s)")
    print(f"nginx's errors (tail)  {errors.strip() or '-'}")
    if wrong:
        sys.exit(1)


if __name__ == "__main__":
    main()
