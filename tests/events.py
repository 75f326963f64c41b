"""Event builders shared by tests of the stream's consumers (the page, the screen model,
the MCP results): the fields a test does not care about get plain defaults."""

from __future__ import annotations

from app.events import DoneEvent, Event, ToolStartEvent, ToolTimeoutEvent


def timed_out(
    call_id: str = "c1",
    tool_name: str = "x",
    *,
    retryable: bool = False,
    unknown: bool = True,
    timeout_s: float = 30,
    message: str = "timed out",
) -> ToolTimeoutEvent:
    """A tool call that ran out of time; by default a write's (not retryable, its status
    unknown)."""
    return ToolTimeoutEvent(
        call_id=call_id,
        tool_name=tool_name,
        timeout_s=timeout_s,
        retryable=retryable,
        status_unknown=unknown,
        message=message,
    )


def write_timed_out(task_id: str | None) -> list[Event]:
    """A turn whose deploy (call ``w``, with ``task_id``) timed out, its status unknown."""
    return [
        ToolStartEvent(
            call_id="w", tool_name="deploy_dashboard", is_write_tool=True, task_id=task_id
        ),
        timed_out("w", "deploy_dashboard", timeout_s=600),
        DoneEvent(state="idle"),
    ]
