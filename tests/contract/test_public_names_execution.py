"""The seed's contract, callable as written (``docs/contract.md``, "Public names"): one
test per TEST_EDGE of the execution wrappers (Tools.Retry, Timeout, Summarise) and of the
events' frames (``encode_sse``, ``permission_denied_event``), each function called with the
seed's signature."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from app.agent.events import (
    ConfirmRequiredEvent,
    DoneEvent,
    MessageEvent,
    PermissionDeniedEvent,
    TokenEvent,
    ToolEndEvent,
    ToolRetryEvent,
    ToolStartEvent,
    ToolTimeoutEvent,
    encode_sse,
    permission_denied_event,
)
from app.agent.execution import execute_with_timeout, retry_read_tool, summarise_response

# --- AgentChat.Tools.Retry / Timeout / Summarise -------------------------------------------


@pytest.fixture
def no_delay(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The retry's fixed 1 s delay, recorded instead of slept."""
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    from app.agent import execution

    monkeypatch.setattr(execution, "pause", sleep)
    return slept


def http_error(status: int) -> httpx.HTTPStatusError:
    request = httpx.Request("GET", "http://superset.test/api/v1/dashboard/")
    return httpx.HTTPStatusError("bad", request=request, response=httpx.Response(status))


async def test_first_attempt_502_retries_once_and_succeeds(no_delay: list[float]):
    calls: list[int] = []

    async def read() -> str:
        calls.append(1)
        if len(calls) == 1:
            raise http_error(502)
        return "ok"

    assert await retry_read_tool(read) == "ok"
    assert len(calls) == 2 and no_delay == [1.0]


async def test_both_attempts_502_raise_with_retry_exhausted(no_delay: list[float]):
    async def read() -> str:
        raise http_error(502)

    with pytest.raises(Exception) as failed:
        await retry_read_tool(read)
    assert failed.value.retry_exhausted is True  # type: ignore[attr-defined]


async def test_write_tool_502_is_not_retried(no_delay: list[float]):
    calls: list[int] = []

    async def write() -> str:
        calls.append(1)
        raise http_error(502)

    with pytest.raises(Exception) as failed:
        await retry_read_tool(write, read_only=False)
    assert len(calls) == 1 and no_delay == []
    assert not getattr(failed.value, "retry_exhausted", False)


async def test_tool_completes_under_timeout():
    async def quick() -> str:
        return "done"

    assert await execute_with_timeout(quick) == "done"


@pytest.mark.parametrize(
    ("is_write", "retryable", "status_unknown"), [(False, True, False), (True, False, True)]
)
async def test_a_tool_over_its_timeout_is_a_tool_timeout(
    is_write: bool, retryable: bool, status_unknown: bool
):
    async def slow() -> str:
        await asyncio.sleep(5)
        return "late"

    with pytest.raises(Exception) as timed_out:
        await execute_with_timeout(slow, is_write, 0.05)
    error: Any = timed_out.value
    assert error.details["retryable"] is retryable
    assert error.details["status_unknown"] is status_unknown
    event = ToolTimeoutEvent(
        conv_id="c",
        seq=1,
        call_id="call-1",
        tool_name="t",
        timeout_s=error.details["timeout_s"],
        retryable=error.details["retryable"],
        status_unknown=error.details["status_unknown"],
        message=error.message,
    )
    assert encode_sse(event).startswith("event: tool_timeout\n")
    if is_write:
        assert error.message == "Operation status unknown — check Superset"


def test_summarise_response_keeps_short_text_and_structures_long_output():
    assert summarise_response("short") == "short"
    items = [{"id": i, "title": f"dashboard {i}"} for i in range(400)]
    array = summarise_response(json.dumps(items))
    assert array.startswith("Found 400 items:") and "+ 395 more." in array
    assert len(array) <= 4000
    obj = summarise_response(json.dumps({f"key{i}": "v" * 50 for i in range(200)}))
    assert obj.startswith("Result keys:") and len(obj) <= 4000
    text = summarise_response("A sentence here. " * 400)
    assert text.endswith("...") and len(text) <= 4000 and text[:-3].endswith(".")


# --- AgentChat.Confirmation.PermissionDenied / the events ---------------------------------


def test_encode_sse_frames_every_event_by_its_type():
    events = [
        TokenEvent(conv_id="c", seq=1, text="Hi"),
        ToolStartEvent(conv_id="c", seq=2, call_id="k", tool_name="search_dashboards"),
        ToolRetryEvent(conv_id="c", seq=3, call_id="k", tool_name="search_dashboards", attempt=1),
        ToolEndEvent(
            conv_id="c", seq=4, call_id="k", tool_name="search_dashboards", status="completed"
        ),
        MessageEvent(conv_id="c", seq=5, text="Found 3."),
        DoneEvent(conv_id="c", seq=6),
    ]
    for event in events:
        frame = encode_sse(event)
        head, data, end = frame.split("\n", 2)
        assert head == f"event: {event.type}" and end == "\n"
        assert json.loads(data.removeprefix("data: "))["seq"] == event.seq


def test_permission_denied_event_bypasses_the_confirmation():
    alternatives = [{"action": "search_dashboards", "prompt": "Find dashboards about sales"}]
    frame = permission_denied_event("deploy_dashboard", "admin", alternatives)
    head, data, _ = frame.split("\n", 2)
    assert head == "event: permission_denied"
    payload = json.loads(data.removeprefix("data: "))
    event = PermissionDeniedEvent.model_validate(payload)
    assert (event.tool_name, event.required_role) == ("deploy_dashboard", "admin")
    assert [a.model_dump() for a in event.alternatives] == alternatives
    assert "confirm_required" not in frame and ConfirmRequiredEvent.model_fields
