"""A Stop sent to the replica that does not run the turn, judged as the person pressing it
would judge it (:func:`stop_from_the_other_replica`, :class:`StopTrial`), and CPU-bound
processes to run beside it (:func:`cpu_burners`). Used by the CI test of stops under load
(``test_runs_across_replicas``) and by ``bench.replica_stop_stress`` (50 repetitions).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from tests.replicas.long_turns import (
    Cluster,
    new_conv,
    other_replica,
    post,
    start_long_turn,
)
from tests.waiting import WAIT_S

#: A stop must have ended the turn within this long, or it counts as not stopped (the
#: turn's own end, its tool's timeout, is two minutes away).
STOP_BOUND_S = WAIT_S
HONEST = {(True, "stopped"), (False, "stopping")}  # (confirmed, status) of a stopped turn


@dataclass
class StopTrial:
    status: int
    answer: dict[str, Any]
    answered_s: float  # Stop pressed -> answer received
    ended_s: float | None  # Stop pressed -> the turn's stream ended (None: not in the bound)
    stopped_event: bool  # the turn's stream said ``stopped``

    @property
    def confirmed(self) -> bool:
        return self.answer.get("confirmed") is True

    def wrong(self) -> str | None:
        """Why this answer misled the person, or None. The turn runs until stopped, so
        the only honest answers are "stopped" (confirmed) and "stopping" (accepted), and
        either must be followed by the turn's stream saying it stopped."""
        if self.status != 200:
            return f"HTTP {self.status}: {self.answer}"
        if self.answer.get("stopped") is not True:
            return f"said not stopped while the turn ran: {self.answer}"
        if (self.answer.get("confirmed"), self.answer.get("status")) not in HONEST:
            return f"an answer that contradicts itself: {self.answer}"
        if self.ended_s is None or not self.stopped_event:
            return f"said stopped, the turn did not stop within {STOP_BOUND_S:.0f} s"
        return None


def stop_from_the_other_replica(cluster: Cluster, *, freeze_s: float = 0.0) -> StopTrial:
    """A long turn through nginx, stopped by a request to the replica not running it;
    ``freeze_s``: the running replica is stopped (SIGSTOP) that long from just before the
    Stop, as if it were too busy to answer (over the asker's 3 s wait: accepted)."""
    conv = new_conv()
    turn = start_long_turn(cluster, conv)
    runs_on = cluster.running_on(conv)
    running = cluster.replicas.tags[runs_on]
    thaw: threading.Timer | None = None
    if freeze_s > 0:
        assert running.proc is not None
        running.proc.send_signal(signal.SIGSTOP)
        thaw = threading.Timer(freeze_s, running.proc.send_signal, (signal.SIGCONT,))
        thaw.start()
    t0 = time.monotonic()
    try:
        r = post(
            cluster, "/api/agent/cancel", {"conv_id": conv}, base=other_replica(cluster, runs_on)
        )
        answered = time.monotonic() - t0
        if thaw is not None:
            thaw.join()  # the freeze lasts its whole time, answered or not
    except BaseException:
        if thaw is not None and running.proc is not None:
            thaw.cancel()
            running.proc.send_signal(signal.SIGCONT)  # never leave a replica stopped
        raise
    turn.ended.wait(STOP_BOUND_S)
    ended = None if turn.ended_at is None else turn.ended_at - t0
    try:
        answer = r.json()
    except ValueError:
        answer = {"text": r.text[:200]}
    return StopTrial(r.status_code, answer, answered, ended, "stopped" in turn.kinds())


@contextmanager
def cpu_burners(count: int) -> Iterator[list[subprocess.Popen[bytes]]]:
    """``count`` processes spinning ``while True: pass`` until the block ends."""
    spinning = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield spinning
    finally:
        for proc in spinning:
            proc.kill()
            proc.wait()
