"""A planner child that waits at a gate before each job: ``python -m
tests.planner.gated_planner DIR``. It touches ``DIR/started`` when a job arrives and plans
it (with the real planner) once ``DIR/open`` exists, so a test can act while a reply is
being planned, or let a job run past its budget, without depending on timing."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import app.planner_runs as runs

GATE = Path(sys.argv[1])
_plan = runs.plan_reply


def _gated(*args: Any) -> Any:
    (GATE / "started").touch()
    while not (GATE / "open").exists():
        time.sleep(0.01)
    return _plan(*args)


if __name__ == "__main__":
    runs.plan_reply = _gated  # type: ignore[assignment]
    runs._child()
