"""Execution wrappers: every TEST_EDGE of Tools.Retry and Tools.Timeout, and the two as
the seam composes them. Summarise: test_execution_summarise.py."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest

from app.agent import execution
from app.agent.execution import (
    WRITE_TIMEOUT_MESSAGE,
    execute_with_timeout,
    retry_read_tool,
)
from app.errors import (
    SupersetNotFoundError,
    SupersetUnavailableError,
    ToolError,
    ToolTimeoutError,
)
from tests.waiting import WAIT_S


def _http_error(status: int) -> httpx.HTTPStatusError:
    request = httpx.Request("GET", "http://superset.test/api/v1/dashboard/")
    response = httpx.Response(status, request=request)
    return httpx.HTTPStatusError(f"HTTP {status}", request=request, response=response)


def _connect_error() -> httpx.ConnectError:
    return httpx.ConnectError(
        "connection refused", request=httpx.Request("GET", "http://superset.test/")
    )


class Flaky:
    """An async tool that raises the given errors in turn, then returns "ok"."""

    def __init__(self, *errors: BaseException) -> None:
        self.errors = list(errors)
        self.calls = 0

    async def __call__(self, *args: Any, **kwargs: Any) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        return f"ok {args} {kwargs}"


RETRY_CASES: list[Any] = [
    # TEST_EDGE first_attempt_502: auto-retries once, succeeds
    pytest.param([_http_error(502)], True, 2, None, False, id="first_attempt_502"),
    # TEST_EDGE both_attempts_502: raises with retry_exhausted=True (wrapped, typed)
    pytest.param([_http_error(502), _http_error(502)], True, 2, SupersetUnavailableError, True,
                 id="both_attempts_502"),
    # TEST_EDGE write_tool_502: no retry for write tools, raises immediately
    pytest.param([_http_error(502)], False, 1, SupersetUnavailableError, False,
                 id="write_tool_502"),
    # a connection error is transient too
    pytest.param([_connect_error()], True, 2, None, False, id="connect_error_then_ok"),
    # the Superset client's own typed transient error is retried
    pytest.param([SupersetUnavailableError("down", status_code=503)], True, 2, None, False,
                 id="typed_transient_then_ok"),
    # typed transient twice: the same error type, marked exhausted
    pytest.param([SupersetUnavailableError("down"), SupersetUnavailableError("still down")], True,
                 2, SupersetUnavailableError, True, id="typed_transient_twice"),
    # 4xx is not transient: no retry
    pytest.param([_http_error(404)], True, 1, httpx.HTTPStatusError, None, id="http_404"),
    # a typed client error is not retried
    pytest.param([SupersetNotFoundError("no dashboard 7", status_code=404)], True, 1,
                 SupersetNotFoundError, False, id="typed_not_found"),
    # a bug in the tool is not retried and not wrapped
    pytest.param([ValueError("bug")], True, 1, ValueError, None, id="programming_error"),
    # transient first, then a non-transient typed error: exhausted, original type kept
    pytest.param([_http_error(500), SupersetNotFoundError("gone")], True, 2, SupersetNotFoundError,
                 True, id="transient_then_not_found"),
]  # fmt: skip


@pytest.mark.parametrize(("errors", "read_only", "calls", "raises", "exhausted"), RETRY_CASES)
async def test_retry_read_tool_edges(
    errors: list[BaseException],
    read_only: bool,
    calls: int,
    raises: type[BaseException] | None,
    exhausted: bool | None,
) -> None:
    tool = Flaky(*errors)
    retries: list[tuple[int, str]] = []

    async def on_retry(attempt: int, error: BaseException) -> None:
        retries.append((attempt, type(error).__name__))

    if raises is None:
        result = await retry_read_tool(
            tool, "a", read_only=read_only, delay_s=0.0, on_retry=on_retry, page=1
        )
        assert result == "ok ('a',) {'page': 1}"
    else:
        with pytest.raises(raises) as info:
            await retry_read_tool(tool, read_only=read_only, delay_s=0.0, on_retry=on_retry)
        if exhausted is not None:
            assert isinstance(info.value, ToolError)
            assert info.value.retry_exhausted is exhausted
    assert tool.calls == calls
    assert len(retries) == calls - 1
    if retries:
        assert retries[0][0] == 1


async def test_exhausted_http_error_keeps_status_and_cause() -> None:
    tool = Flaky(_http_error(502), _http_error(503))
    with pytest.raises(SupersetUnavailableError) as info:
        await retry_read_tool(tool, delay_s=0.0)
    assert info.value.status_code == 503
    assert isinstance(info.value.__cause__, httpx.HTTPStatusError)


async def test_retry_waits_the_given_fixed_delay_and_accepts_sync_callbacks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    waited: list[float] = []

    async def pause(seconds: float) -> None:  # the retry's clock: what it waited, not how long
        waited.append(seconds)

    monkeypatch.setattr(execution, "pause", pause)
    tool = Flaky(_http_error(502))
    seen: list[int] = []
    retried = await retry_read_tool(tool, delay_s=0.05, on_retry=lambda n, e: seen.append(n))
    assert retried.startswith("ok") and seen == [1]
    # the tool node passes Settings.retry_delay_s (1 s by default, the contract's fixed 1 s)
    assert waited == [0.05]


async def test_retry_accepts_a_sync_tool() -> None:
    calls = []

    def sync_tool() -> int:
        calls.append(1)
        if len(calls) == 1:
            raise _connect_error()
        return 7

    assert await retry_read_tool(sync_tool, delay_s=0) == 7


async def _sleeper(seconds: float, cancelled: list[bool]) -> str:
    try:
        await asyncio.sleep(seconds)
        return "done"
    except asyncio.CancelledError:
        cancelled.append(True)
        raise


TIMEOUT_CASES: list[Any] = [
    # TEST_EDGE tool_completes_under_timeout: returns the result normally
    pytest.param(0.0, False, WAIT_S, None, id="tool_completes_under_timeout"),
    # TEST_EDGE read_tool_exceeds_30s (scaled): tool_timeout with retryable=true
    pytest.param(
        5.0,
        False,
        0.01,
        {
            "retryable": True,
            "status_unknown": False,
            "message": "Timed out after 0.01 s; safe to retry",
        },
        id="read_tool_exceeds",
    ),
    # TEST_EDGE write_tool_exceeds_30s (scaled): retryable=false, status_unknown=true
    pytest.param(
        5.0,
        True,
        0.01,
        {"retryable": False, "status_unknown": True, "message": WRITE_TIMEOUT_MESSAGE},
        id="write_tool_exceeds",
    ),
    # a write that finishes in time is just a result
    pytest.param(0.0, True, WAIT_S, None, id="write_completes_under_timeout"),
]


@pytest.mark.parametrize(("sleep_s", "is_write", "timeout_s", "expected"), TIMEOUT_CASES)
async def test_execute_with_timeout_edges(
    sleep_s: float, is_write: bool, timeout_s: float, expected: dict[str, Any] | None
) -> None:
    cancelled: list[bool] = []
    notified: list[ToolTimeoutError] = []

    async def on_timeout(err: ToolTimeoutError) -> None:
        notified.append(err)

    if expected is None:
        result = await execute_with_timeout(
            lambda: _sleeper(sleep_s, cancelled),
            is_write=is_write,
            timeout_s=timeout_s,
            on_timeout=on_timeout,
        )
        assert result == "done" and not notified
        return
    with pytest.raises(ToolTimeoutError) as info:
        await execute_with_timeout(
            lambda: _sleeper(sleep_s, cancelled),
            is_write=is_write,
            timeout_s=timeout_s,
            on_timeout=on_timeout,
        )
    err = info.value
    assert str(err) == expected["message"]
    assert err.details["retryable"] is expected["retryable"] is err.retryable
    assert err.details["status_unknown"] is expected["status_unknown"]
    assert err.details["timeout_s"] == timeout_s
    assert notified == [err]  # on_timeout ran before the raise
    assert cancelled == [True]  # the tool itself was cancelled, not waited for


async def test_timeout_accepts_an_awaitable_and_a_sync_callback() -> None:
    seen: list[str] = []
    with pytest.raises(ToolTimeoutError):
        await execute_with_timeout(
            asyncio.sleep(5), timeout_s=0.01, on_timeout=lambda e: seen.append(str(e))
        )
    assert seen == ["Timed out after 0.01 s; safe to retry"]
    assert await execute_with_timeout(asyncio.sleep(0, result=3), timeout_s=WAIT_S) == 3


async def test_timeout_error_raised_by_the_tool_is_not_our_timeout() -> None:
    async def tool() -> None:
        raise TimeoutError("the tool's own timeout")

    with pytest.raises(TimeoutError, match="own timeout") as info:
        await execute_with_timeout(tool, timeout_s=5)
    assert not isinstance(info.value, ToolTimeoutError)


async def test_timeout_wraps_retry_as_the_seam_composes_them() -> None:
    tool = Flaky(_http_error(502))
    result = await execute_with_timeout(
        lambda: retry_read_tool(tool, delay_s=0.0), timeout_s=WAIT_S
    )
    assert result.startswith("ok") and tool.calls == 2


async def test_retry_and_timeout_leave_a_cot_trail(caplog: pytest.LogCaptureFixture) -> None:
    from app.reasoning import LOGGER_NAME, REASON

    with caplog.at_level(REASON, logger=LOGGER_NAME):
        await retry_read_tool(Flaky(_http_error(502)), delay_s=0.0)
        with pytest.raises(ToolTimeoutError):
            await execute_with_timeout(asyncio.sleep(1), is_write=True, timeout_s=0.01)
    phases = [json.loads(r.getMessage())["phase"] for r in caplog.records if r.name == LOGGER_NAME]
    assert phases == ["reason", "explore", "reflect", "explore"]
