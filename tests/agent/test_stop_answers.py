"""What a person's Stop answers (``app.agent.core.stopping``): confirmed or accepted, a turn
that ended on its own, nothing running; and the audit row of each stop of a running turn.

The other replica is a stand-in for the stop signals (``RunSignals``) under the core's real
``ReplicaRuns``: it answers what a busy, racing or dead replica answers, which a real pair
of replicas cannot be made to answer on cue. The real signals on PostgreSQL are
``tests/replicas/test_run_signals.py``; two real replicas behind nginx,
``tests/replicas/test_runs_across_replicas.py``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from app.agent.core.replica_runs import ReplicaRuns
from app.auth import Principal
from app.store.models import utcnow
from app.store.run_locks import LocalRunLocks
from app.store.run_signals import OnStop, RunInfo, RunTicket, StopAnswer
from tests.agent.test_stop_a_turn import _confirmed_write_running

ALICE = Principal(user_id="alice", role="admin")
WRITES = [{"call_id": "call-9", "tool_name": "deploy_dashboard"}]
ELSEWHERE = "host:2:bbbb"
ASKED = "stop requested by the user; its replica has not answered yet"


class OtherReplica:
    """The stop signals as the replica asked sees them: the conversation runs on
    ``ELSEWHERE`` (unless ``runs`` is False), whose answer is ``answer(conv_id)``."""

    def __init__(self, answer: Callable[[str], StopAnswer | None], *, runs: bool = True) -> None:
        self.answer, self.runs = answer, runs
        self.asked: list[str] = []

    async def listen(self, on_stop: OnStop) -> None:
        return None

    async def started(self, conv_id: str, *, user_id: str | None) -> RunTicket:
        return RunTicket(conv_id, "here", user_id)

    async def finished(self, ticket: RunTicket, *, stopped: bool = False) -> None:
        return None

    async def running(self, conv_id: str) -> RunInfo | None:
        if not self.runs:
            return None
        return RunInfo(conv_id, "run-1", ELSEWHERE, "alice", utcnow(), None)

    async def request_stop(
        self, conv_id: str, *, by: str | None = None, wait_s: float = 3.0
    ) -> StopAnswer | None:
        self.asked.append(conv_id)
        return self.answer(conv_id)

    async def aclose(self) -> None:
        return None


def elsewhere(harness: Any, monkeypatch: pytest.MonkeyPatch, signals: OtherReplica) -> None:
    """The harness's core as one of several replicas, the others behind ``signals``."""
    shared = ReplicaRuns(
        harness.core.db, harness.core._stop_for_replica, locks=LocalRunLocks(), signals=signals
    )
    monkeypatch.setattr(harness.core, "replica_runs", lambda: shared)


def answered(name: str, answer: Any, reason: str | None, *report: Any) -> Any:
    """A row: what the running replica answers (``answer(conv_id)``), the ``turn_stopped``
    row's reason (None: no row), and the report's stopped, confirmed, status and writes."""
    fields = ("stopped", "confirmed", "status", "writes_in_flight")
    expected = dict(zip(fields, report, strict=True))
    return pytest.param(answer, expected, reason, id=name)


@pytest.mark.parametrize(
    ("answer", "expected", "reason"),
    [
        # the running replica answered within the wait: confirmed, its writes go on
        answered("confirmed", lambda c: StopAnswer(c, ELSEWHERE, True, WRITES),
                 "stopped by the user", True, True, "stopped", WRITES),
        # a busy replica did not answer in time: accepted (on its row, honoured at its
        # next heartbeat), said as such, never "nothing to stop"
        answered("accepted", lambda c: StopAnswer(c, ELSEWHERE, False, answered=False),
                 ASKED, True, False, "stopping", []),
        # it threw the switch, and the run ended before its answer was written
        answered("stopped-then-ended", lambda c: StopAnswer(c, ELSEWHERE, True, ended=True),
                 "stopped by the user", True, True, "stopped", []),
        # the turn finished on its own while the stop was on its way
        answered("ended-on-its-own", lambda c: StopAnswer(c, ELSEWHERE, False, ended=True),
                 None, False, False, "ended", []),
        # its row went between looking and asking: it ended
        answered("gone-before-asked", lambda c: None, None, False, False, "ended", []),
    ],
)  # fmt: skip
async def test_a_stop_of_a_turn_on_another_replica_answers_what_happened(
    harness: Any,
    monkeypatch: pytest.MonkeyPatch,
    answer: Callable[[str], StopAnswer | None],
    expected: dict[str, Any],
    reason: str | None,
) -> None:
    harness.use("Hello.")
    await harness.turn("hi", conv_id="stop-far")  # the conversation (and its owner) exists
    await harness.core.turns().drain()  # and its turn has ended here
    signals = OtherReplica(answer)
    elsewhere(harness, monkeypatch, signals)
    report = (await harness.core.cancel(ALICE, "stop-far", channel="http")).as_dict()
    assert {k: report[k] for k in expected} == expected and report["withdrawn"] is None
    assert signals.asked == ["stop-far"]
    rows = harness.audit_rows(kind="turn_stopped", conv_id="stop-far")
    assert [r["reason"] for r in rows] == ([reason] if reason else [])
    if reason:
        assert rows[0]["args"]["replica"] == "bbbb"  # its tag, not its host and pid


async def test_no_run_anywhere_answers_not_running(
    harness: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    harness.use("Hello.")
    await harness.turn("hi", conv_id="stop-none")
    await harness.core.turns().drain()
    signals = OtherReplica(lambda c: None, runs=False)
    elsewhere(harness, monkeypatch, signals)
    report = await harness.core.cancel(ALICE, "stop-none")
    assert (report.stopped, report.confirmed, report.status) == (False, False, "not_running")
    assert signals.asked == []


async def test_a_second_stop_while_its_write_runs_on_says_stopped_and_is_audited_once(
    harness: Any,
) -> None:
    conf, tools, stream = await _confirmed_write_running(harness, "stop-twice")
    write = [{"call_id": conf.call_id, "tool_name": "deploy_dashboard"}]
    first = await harness.core.cancel(ALICE, "stop-twice")
    await stream.done()
    again = await harness.core.cancel(ALICE, "stop-twice")  # the write still runs
    for report in (first, again):  # never "nothing to stop" while the turn's write runs
        assert (report.stopped, report.confirmed, report.status) == (True, True, "stopped")
        assert report.writes_in_flight == write
    assert len(harness.audit_rows(kind="turn_stopped", conv_id="stop-twice")) == 1
    tools.release.set()
    await harness.core.turns().drain()
    over = await harness.core.cancel(ALICE, "stop-twice")
    assert (over.stopped, over.status) == (False, "not_running")
