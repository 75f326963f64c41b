"""A Stop sent to the other replica, repeated under CPU load: two replicas behind nginx on
a throwaway PostgreSQL (``tests.replicas.long_turns``), CPU-bound processes beside them.

    .venv/bin/python -m bench.replica_stop_stress [N] [BURNERS]

Each of ``N`` repetitions (default 50) starts a long turn through nginx (a read hanging on
a Superset that never answers), asks the replica that does *not* run it to stop it
(``POST /api/agent/cancel``), and waits for the turn's stream to end. ``BURNERS``
(default 2) processes spin ``while True: pass`` the whole time.

A wrong answer is one a person would be misled by: not 200; ``stopped`` false while the
turn was running (it ends only when stopped); ``stopped`` true but the turn did not stop
(its stream ended without ``stopped``, or not within the bound); ``confirmed`` while the
stream never said ``stopped``. Prints the counts (wrong answers must be 0), how many were
confirmed by the running replica vs accepted (recorded; honoured at its next step), and
p50/p95/max of the answer's time and of the time from Stop to the turn's end.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.agent_bench import pct
from tests.pg import start_cluster
from tests.replicas.long_turns import (
    Cluster,
    long_turn_cluster,
    new_conv,
    other_replica,
    post,
    start_long_turn,
)
from tests.waiting import WAIT_S

#: A stop must have ended the turn within this long, or it counts as not stopped.
STOP_BOUND_S = WAIT_S


@dataclass
class Trial:
    status: int
    answer: dict[str, Any]
    answered_s: float  # Stop pressed -> answer received
    ended_s: float | None  # Stop pressed -> the turn's stream ended (None: not in the bound)
    stopped_event: bool  # the turn's stream said ``stopped``

    def wrong(self) -> str | None:
        """Why this answer misled the person, or None."""
        if self.status != 200:
            return f"HTTP {self.status}: {self.answer}"
        if self.answer.get("stopped") is not True:
            return f"said not stopped while the turn ran: {self.answer}"
        if self.ended_s is None or not self.stopped_event:
            return f"said stopped, the turn did not stop: {self.answer}"
        return None


def one_stop(cluster: Cluster) -> Trial:
    conv = new_conv()
    turn = start_long_turn(cluster, conv)
    runs_on = cluster.running_on(conv)
    t0 = time.monotonic()
    r = post(cluster, "/api/agent/cancel", {"conv_id": conv}, base=other_replica(cluster, runs_on))
    answered = time.monotonic() - t0
    turn.ended.wait(STOP_BOUND_S)
    ended = None if turn.ended_at is None else turn.ended_at - t0
    try:
        answer = r.json()
    except ValueError:
        answer = {"text": r.text[:200]}
    return Trial(r.status_code, answer, answered, ended, "stopped" in turn.kinds())


def _spread(values: list[float]) -> str:
    if not values:
        return "-"
    return f"p50 {pct(values, 50):.2f} s, p95 {pct(values, 95):.2f} s, max {max(values):.2f} s"


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    burners = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    spinning = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(burners)
    ]
    pg = start_cluster()
    trials: list[Trial] = []
    errors = ""
    try:
        with (
            tempfile.TemporaryDirectory(prefix="stop-stress-") as base,
            long_turn_cluster(pg.url, Path(base)) as cluster,
        ):
            for i in range(n):
                try:
                    trial = one_stop(cluster)
                except AssertionError:
                    for server in cluster.replicas.servers:
                        print(f"--- {server.url}\n{server.tail(60)}", flush=True)
                    print(f"--- nginx\n{cluster.replicas.nginx.tail()}", flush=True)
                    raise
                trials.append(trial)
                why = trial.wrong()
                mark = "WRONG " + why if why else "ok"
                print(
                    f"{i + 1:>3}/{n} answered {trial.answered_s:5.2f} s, ended "
                    f"{trial.ended_s or -1:5.2f} s, confirmed={trial.answer.get('confirmed')}: "
                    f"{mark}",
                    flush=True,
                )
            errors = cluster.replicas.nginx.tail()
    finally:
        for proc in spinning:
            proc.kill()
            proc.wait()
        pg.stop()
    wrong = [t for t in trials if t.wrong()]
    confirmed = sum(1 for t in trials if t.answer.get("confirmed") is True)
    ends = [t.ended_s for t in trials if t.ended_s is not None]
    print(f"repetitions            {len(trials)} with {burners} CPU-bound processes beside")
    print(f"wrong answers          {len(wrong)}")
    print(f"confirmed / accepted   {confirmed} / {len(trials) - confirmed}")
    print(f"answer time            {_spread([t.answered_s for t in trials])}")
    print(f"Stop -> turn ended     {_spread(ends)} (bound {STOP_BOUND_S:.0f} s)")
    print(f"nginx's errors (tail)  {errors.strip() or '-'}")
    if wrong:
        sys.exit(1)


if __name__ == "__main__":
    main()
