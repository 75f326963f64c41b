"""Event builders shared by tests of the stream's consumers (the page, the screen model,
the MCP results): the fields a test does not care about get plain defaults."""

from __future__ import annotations

from app.events import DoneEvent, Event, Offer, OfferedCall, ToolStartEvent, ToolTimeoutEvent


def timed_out(
    call_id: str = "c1",
    tool_name: str = "x",
    *,
    retryable: bool = False,
    unknown: bool = True,
    timeout_s: float = 30,
    message: str = "timed out",
    offers: list[Offer] | None = None,
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
        offers=offers or [],
    )


def check_status_offer(
    task_id: str | None, *, clear_context: bool = False, lang: str = "en"
) -> Offer:
    """The core's "Check status" of a write that timed out (``app.agent.offers``): a direct
    get_task_status call, by the task's id when there is one."""
    request = {"en": "check the status of task {}", "ru": "проверь статус задачи {}"}[lang]
    label = {"en": "Check status", "ru": "Проверить статус"}[lang]
    return Offer(
        kind="check_status",
        label=label,
        request=request.format(task_id),
        call=OfferedCall(tool_name="get_task_status", args={"task_id": task_id} if task_id else {}),
        clear_context=clear_context,
    )


def write_timed_out(
    task_id: str | None, *, clear_context: bool = False, lang: str = "en"
) -> list[Event]:
    """A turn whose deploy (call ``w``, with ``task_id``) timed out, its status unknown;
    the core offers "Check status" (``clear_context``: on a page that filters
    get_task_status out)."""
    offer = check_status_offer(task_id, clear_context=clear_context, lang=lang)
    return [
        ToolStartEvent(
            call_id="w", tool_name="deploy_dashboard", is_write_tool=True, task_id=task_id
        ),
        timed_out("w", "deploy_dashboard", timeout_s=600, offers=[offer]),
        DoneEvent(state="idle"),
    ]
