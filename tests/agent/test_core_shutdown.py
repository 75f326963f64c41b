"""A core's shutdown (app shutdown, a test's teardown) with a graph still running: the run
gets a grace period to end, then is cancelled, before the checkpointer closes; no run
writes a checkpoint to a closed connection."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from app.agent.core import control
from app.events import DoneEvent, ToolStartEvent
from tests.agent.scripted import call
from tests.agent.test_stop_a_turn import Blocking, _start
from tests.waiting import WAIT_S


async def _running(harness: Any) -> tuple[Blocking, Any]:
    """A turn whose read (search) has started and blocks until released."""
    tools = Blocking()
    harness.use(
        call("search_dashboards", query="sales"),
        "Found them.",
        tools={"search_dashboards": tools.tool("search_dashboards")},
    )
    stream = await _start(harness, "find sales dashboards", harness.conv_id)
    await stream.wait_for(ToolStartEvent)
    return tools, stream


async def test_shutdown_lets_a_running_graph_end_within_its_grace(
    harness: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(control, "SHUTDOWN_GRACE_S", WAIT_S)  # a grace a loaded machine keeps
    tools, stream = await _running(harness)
    release_soon = asyncio.get_running_loop().call_later(0.1, tools.release.set)
    await harness.core.aclose()
    release_soon.cancel()
    assert tools.finished == ["search_dashboards"]  # the read ended, not cancelled
    events = await stream.done()
    assert isinstance(events[-1], DoneEvent)


async def test_shutdown_cancels_a_graph_still_running_after_its_grace(
    harness: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(control, "SHUTDOWN_GRACE_S", 0.2)
    tools, stream = await _running(harness)
    await harness.core.aclose()  # returns: the blocked read does not hold the shutdown
    assert tools.ran == ["search_dashboards"] and tools.finished == []
    await stream.done()  # the page's stream ends too, nothing left waiting
    assert harness.core.turns().active(harness.conv_id) is None
