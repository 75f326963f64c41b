"""The offline planner plans off the event loop, in a child process, within its budget.

Through the real app (the NiceGUI ``user`` fixture's, over HTTP): while the planner
reads a worst-case 20,000-character message, ``/api/health`` is answered; a reply past
``planner_budget_s`` ends the turn with a sentence, ``done`` and an audit row, and the
killed child is replaced. The planner's child here waits at a gate
(``tests/planner/gated_planner.py``) before it plans, so each test acts while a reply is
being planned without depending on how fast the machine is.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from nicegui.testing import User

from app.events import decode_sse
from app.i18n import t
from app.planner import OfflinePlanner
from app.planner_runs import close_pools, planner_runner
from app.tools.catalog import TOOL_CATALOG
from bench.redos_bench import CASES, MESSAGE_CAP
from tests.api.test_agent_api import post_stream

GATED = (sys.executable, "-m", "tests.planner.gated_planner")


@pytest.fixture
def gate(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    close_pools()  # the gated children end with the test


def gated_planner(gate: Path, budget_s: float) -> OfflinePlanner:
    argv = (*GATED, str(gate))
    runner = planner_runner(
        TOOL_CATALOG, budget_s=budget_s, workers=1, argv=argv, thread_until_started=False
    )
    return OfflinePlanner(catalog=TOOL_CATALOG, runner=runner)


async def reached(path: Path) -> None:
    while not path.exists():
        await asyncio.sleep(0.01)


def the_message(events: list[dict[str, Any]]) -> dict[str, Any]:
    assert [e["type"] for e in events][-2:] == ["message", "done"], events
    return events[-2]


async def test_health_is_answered_while_a_20000_character_message_is_planned(
    user: User, harness: Any, gate: Path
) -> None:
    harness.use(model=gated_planner(gate, budget_s=600), real=True)
    text = CASES["dashboard_spaces"](MESSAGE_CAP)  # was cubic: hours on the event loop
    body = {"message": text, "conv_id": "hostile", "env_id": "dev"}
    turn = asyncio.create_task(post_stream(user, body))
    await reached(gate / "started")  # the child has the job
    health = await user.http_client.get("/api/health")
    assert health.status_code == 200 and not turn.done()  # answered while it plans
    (gate / "open").touch()
    reply = await turn
    message = the_message(decode_sse(reply.text))
    assert message["problem"] is None and "dashboard" in message["text"]


async def test_a_reply_past_the_budget_ends_the_turn_with_a_sentence_and_an_audit_row(
    user: User, harness: Any, gate: Path
) -> None:
    harness.use(model=gated_planner(gate, budget_s=2.0), real=True)  # the gate stays shut
    reply = await post_stream(user, {"message": "what can you do?", "conv_id": "slow"})
    assert reply.status_code == 200
    message = the_message(decode_sse(reply.text))
    assert message["problem"] == "timed_out" and message["text"] == t("model_timed_out", "en")
    (row,) = [r for r in harness.audit_rows() if str(r["reason"]).startswith("model: ")]
    assert row["kind"] == "failed" and "WorkerTimeout" in row["reason"]
    (gate / "open").touch()  # the killed child is replaced: the next reply is planned
    again = await post_stream(user, {"message": "what can you do?", "conv_id": "slow-2"})
    events = decode_sse(again.text)
    ended = [e for e in events if e["type"] == "tool_end"]
    assert [(e["tool_name"], e["status"]) for e in ended] == [("show_capabilities", "completed")]
    assert the_message(events)["problem"] is None


async def test_until_its_child_has_started_a_reply_is_planned_in_a_thread(gate: Path) -> None:
    argv = (*GATED, str(gate))
    runner = planner_runner(TOOL_CATALOG, budget_s=600, workers=1, argv=argv)
    reply = await runner([HumanMessage("what can you do?")], None)  # the child is starting
    assert reply.tool_calls[0]["name"] == "show_capabilities"
    assert not (gate / "started").exists()  # no child planned it
