"""Execution wrappers around one tool call: retry (reads only), timeout, summarise.

The seam composes them as ``execute_with_timeout(lambda: retry_read_tool(fn, ...))`` and
then ``summarise_response(text)`` on the result (contract regions Tools.Retry,
Tools.Timeout and Tools.Summarise). The tool node passes the settings' delay and
timeout; called alone they default to the contract's 1 s and 30 s (docs/contract.md).
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from app.errors import SupersetUnavailableError, ToolError, ToolTimeoutError, TransientError
from app.reasoning import cot_logger

MAX_RETRIES = 1
DEFAULT_RETRY_DELAY_S = 1.0  # Settings.retry_delay_s's default
DEFAULT_TIMEOUT_S = 30.0  # Settings.tool_timeout_s's default
WRITE_TIMEOUT_MESSAGE = "Operation status unknown — check Superset"
TOP_N = 5
MAX_JSON_PARSE = 20_000_000  # above this a payload is cut as text, never parsed


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


def is_transient(error: BaseException) -> bool:
    """5xx answers and connection-level failures are worth one retry."""
    if isinstance(error, TransientError):
        return True
    if isinstance(error, httpx.HTTPStatusError):
        return error.response.status_code >= 500
    return isinstance(error, httpx.TransportError)


def _as_tool_error(error: BaseException) -> ToolError:
    if isinstance(error, ToolError):
        return error
    status = None
    if isinstance(error, httpx.HTTPStatusError):
        status = error.response.status_code
        text = f"Superset answered HTTP {status}"
    else:
        text = f"Superset unreachable ({type(error).__name__})"
    return SupersetUnavailableError(text, status_code=status)


#: How the retry waits out its delay (a test's fake clock replaces it).
pause = asyncio.sleep


async def retry_read_tool(
    func: Callable[..., Any],
    *args: Any,
    read_only: bool = True,
    delay_s: float = DEFAULT_RETRY_DELAY_S,
    on_retry: Callable[[int, BaseException], Any] | None = None,
    **kwargs: Any,
) -> Any:
    """Call ``func(*args, **kwargs)``; for a read-only tool, retry once after a fixed delay
    on a transient error (``TransientError``, httpx transport errors, HTTP 5xx).

    ``on_retry(attempt, error)`` (sync or async) runs before the retry. When the retry
    fails too, the error is raised with ``retry_exhausted=True`` (httpx errors are wrapped
    in ``SupersetUnavailableError``). Write tools are never retried."""
    name = getattr(func, "__name__", type(func).__name__)
    try:
        return await _maybe_await(func(*args, **kwargs))
    except Exception as first:
        if not is_transient(first):
            raise
        if not read_only:
            cot_logger.reason("write tool failed; not retried", tool=name, error=str(first))
            if isinstance(first, ToolError):
                raise
            raise _as_tool_error(first) from first
        delay = delay_s
        cot_logger.reason(
            "transient error on a read tool; one retry", tool=name, error=str(first), delay_s=delay
        )
        if on_retry is not None:
            await _maybe_await(on_retry(1, first))
        await pause(delay)
    cot_logger.explore("retrying read tool", tool=name, attempt=1)
    try:
        result = await _maybe_await(func(*args, **kwargs))
    except Exception as second:
        cot_logger.reflect("retry exhausted", tool=name, error=str(second))
        if not isinstance(second, ToolError) and not is_transient(second):
            raise
        err = _as_tool_error(second)
        err.retry_exhausted = True
        if err is second:
            raise
        raise err from second
    cot_logger.reflect("read tool succeeded after retry", tool=name, attempts=2)
    return result


async def execute_with_timeout(
    tool_fn: Callable[[], Awaitable[Any]] | Awaitable[Any],
    is_write: bool = False,
    timeout_s: float | None = DEFAULT_TIMEOUT_S,
    on_timeout: Callable[[ToolTimeoutError], Any] | None = None,
) -> Any:
    """Await ``tool_fn()`` (or the awaitable) for at most ``timeout_s`` seconds
    (None: ``DEFAULT_TIMEOUT_S``).

    On timeout a :class:`ToolTimeoutError` is raised whose ``details`` hold ``retryable``
    (reads) and ``status_unknown`` (writes: the change may have happened, so no retry).
    ``on_timeout(error)`` (sync or async) runs first."""
    limit = DEFAULT_TIMEOUT_S if timeout_s is None else float(timeout_s)
    awaitable = tool_fn() if callable(tool_fn) else tool_fn
    deadline = asyncio.timeout(limit)
    try:
        async with deadline:
            return await awaitable
    except TimeoutError:
        if not deadline.expired():
            raise  # a TimeoutError raised by the tool itself, not our deadline
    message = WRITE_TIMEOUT_MESSAGE if is_write else f"Timed out after {limit:g} s; safe to retry"
    error = ToolTimeoutError(
        message,
        retryable=not is_write,
        status_unknown=is_write,
        timeout_s=limit,
        is_write=is_write,
    )
    error.retryable = not is_write
    cot_logger.explore("tool timed out", timeout_s=limit, is_write=is_write)
    if on_timeout is not None:
        await _maybe_await(on_timeout(error))
    raise error


# --- summarise ------------------------------------------------------------------------------
def _compact(value: Any, budget: int) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text[: budget * 4].split())  # one line, bounded work
    return text if len(text) <= budget else text[: max(0, budget - 3)] + "..."


def _shape(value: Any) -> str:
    if isinstance(value, list):
        return f"[{len(value)} items]"
    if isinstance(value, dict):
        keys = list(value)[:4]
        more = ", ..." if len(value) > 4 else ""
        return "{" + ", ".join(map(str, keys)) + more + "}"
    return _compact(value, 80)


def _summarise_array(items: list[Any], limit: int) -> str:
    n = len(items)
    head = f"Found {n} items:"
    tail = f"\n + {n - TOP_N} more." if n > TOP_N else ""
    shown = items[:TOP_N]
    budget = max(20, (limit - len(head) - len(tail)) // max(1, len(shown)) - 4)
    lines = "".join(f"\n - {_compact(item, budget)}" for item in shown)
    return head + lines + tail


def _summarise_object(obj: dict[str, Any], limit: int, total_len: int) -> str:
    keys = [str(k) for k in obj]
    key_text = ", ".join(keys[:50]) + (f" (+{len(keys) - 50} more)" if len(keys) > 50 else "")
    sample = ", ".join(f"{k}={_shape(v)}" for k, v in list(obj.items())[:8])
    text = f"Result keys: {key_text}. Values: {sample}..."
    # A REST answer ({"count": N, "result": [...]}) is mostly one list: show its top items.
    big = [(k, v) for k, v in obj.items() if isinstance(v, list) and v]
    if big:
        key, items = max(big, key=lambda kv: len(json.dumps(kv[1], default=str)))
        if len(json.dumps(items, default=str)) * 2 > total_len:
            room = limit - len(text) - len(key) - 3
            if room > 200:
                text += f"\n{key}: " + _summarise_array(items, room)
    return text


def _cut_text(text: str, limit: int) -> str:
    window = text[: max(0, limit - 3)]
    cut = max(window.rfind(p) for p in (". ", "! ", "? ", ".\n", "!\n", "?\n", "\n\n"))
    if cut >= len(window) // 2:
        return window[: cut + 1].rstrip() + "..."
    space = window.rfind(" ")
    if space >= len(window) // 2:
        return window[:space].rstrip() + "..."
    return window + "..."


def summarise_response(text: Any, limit: int = 4000) -> str:
    """Structured truncation of a tool's output for the model.

    ≤ ``limit`` characters: unchanged. JSON array: ``Found N items:`` + top 5 + ``+ N-5
    more.``. JSON object: ``Result keys: ... Values: ...``, plus the top items of a list
    that holds most of the object (e.g. Superset's ``result``). Other text: cut at the last
    sentence boundary before the limit + ``...``. The output never exceeds ``limit``."""
    if not isinstance(text, str):
        text = (
            text.decode("utf-8", "replace")
            if isinstance(text, bytes)
            else (json.dumps(text, ensure_ascii=False, default=str))
        )
    if len(text) <= limit:
        return text
    stripped = text.lstrip()
    parsed: Any = None
    if stripped[:1] in ("[", "{") and len(text) <= MAX_JSON_PARSE:
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):
            parsed = None
    try:
        if isinstance(parsed, list):
            out = _summarise_array(parsed, limit)
        elif isinstance(parsed, dict):
            out = _summarise_object(parsed, limit, len(text))
        else:
            return _cut_text(text, limit)
    except RecursionError:  # absurdly nested JSON: fall back to a plain cut
        return _cut_text(text, limit)
    return out if len(out) <= limit else _cut_text(out, limit)
