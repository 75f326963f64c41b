"""Jobs in child processes, each within its deadline (``app.workers``), and the offline
planner's runner built on them (``app.planner_runs``)."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from app.llm import get_chat_model
from app.planner import OfflinePlanner
from app.planner_runs import planner_runner
from app.settings import Settings
from app.tools.catalog import TOOL_CATALOG
from app.workers import ChildWorkers, WorkerError, WorkerTimeout

ROOT = str(Path(__file__).resolve().parent.parent)
CHILD = (sys.executable, "-m", "tests.workers_child")


@pytest.fixture
def workers() -> Iterator[ChildWorkers]:
    pool = ChildWorkers(CHILD, size=1, cwd=ROOT)
    yield pool
    pool.close()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"


async def test_a_job_past_its_deadline_is_stopped_and_the_next_runs_in_a_new_child(workers):
    first = int(await workers.call(b"pid", timeout=60))
    with pytest.raises(WorkerTimeout):
        await workers.call(b"spin", timeout=0.3)  # it never ends: killed at the deadline
    assert not alive(first)
    assert int(await workers.call(b"pid", timeout=60)) != first


async def test_a_child_that_dies_fails_its_job_and_the_next_one_runs(workers):
    with pytest.raises(WorkerError, match="ended"):
        await workers.call(b"exit", timeout=60)
    assert await workers.call(b"again", timeout=60) == b"AGAIN"


async def test_jobs_beyond_the_children_wait_their_turn(workers):
    answers = await asyncio.gather(*(workers.call(w, timeout=60) for w in (b"a", b"b", b"c")))
    assert answers == [b"A", b"B", b"C"]


def test_the_product_plans_offline_replies_in_child_processes(tmp_path):
    settings = Settings(data_dir=tmp_path, planner_budget_s=3.5, planner_workers=1)
    model = get_chat_model(settings, TOOL_CATALOG)
    assert isinstance(model, OfflinePlanner) and model.runner is not None


class _Local(BaseModel):  # a class pickle cannot find by name once moved into a function
    query: str = ""


async def test_a_catalog_pickle_cannot_send_is_planned_in_a_thread_within_the_budget():
    local = type("LocalArgs", (_Local,), {"__qualname__": "somewhere.<locals>.LocalArgs"})
    spec = dataclasses.replace(TOOL_CATALOG["search_dashboards"], args_model=local)
    catalog = {**TOOL_CATALOG, "search_dashboards": spec}
    planner = OfflinePlanner(
        catalog=catalog, runner=planner_runner(catalog, budget_s=60, workers=1)
    ).bind_tools(list(catalog))
    reply = await planner.ainvoke([HumanMessage("find sales dashboards")])
    assert reply.tool_calls[0]["name"] == "search_dashboards"
    hurried = OfflinePlanner(
        catalog=catalog, runner=planner_runner(catalog, budget_s=1e-9, workers=1)
    )
    with pytest.raises(TimeoutError):
        await hurried.ainvoke([HumanMessage("find sales dashboards")])


async def test_warm_starts_the_first_child_in_the_background(workers):
    assert workers.warm() is False  # nothing started yet: it starts now, off this call
    while not workers.warm():
        await asyncio.sleep(0.01)
    assert await workers.call(b"ready", timeout=60) == b"READY"
