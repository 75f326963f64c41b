"""Tool call cards: statuses, retry only for reads, write timeout → Check status, progress."""

from __future__ import annotations

import pytest
from nicegui.testing import User

from app.events import (
    ToolEndEvent,
    ToolProgressEvent,
    ToolRetryEvent,
    ToolStartEvent,
    ToolTimeoutEvent,
)
from components.chat_panel import chat_panel
from tests.events import check_status_offer, timed_out
from tests.fixtures.components import component, feed
from tests.screen.test_model import make
from tests.ui.made_events import done, message
from tests.waiting import until

READ = ToolStartEvent(call_id="c1", tool_name="search_dashboards", tool_args={"query": "sales"})
WRITE = ToolStartEvent(
    call_id="c1", tool_name="deploy_dashboard", tool_args={"dashboard_id": "42"}, is_write_tool=True
)


def timeout(retryable: bool, unknown: bool, offers=None) -> ToolTimeoutEvent:
    return timed_out(
        retryable=retryable, unknown=unknown, message="Timed out after 30 s", offers=offers
    )


def end(status: str, **kw) -> ToolEndEvent:
    return ToolEndEvent(call_id="c1", tool_name="x", status=status, **kw)


@pytest.mark.parametrize(
    ("events", "status_text", "retry_visible"),
    [
        # read tool failed after its retry: Retry offered
        ([READ, end("failed", error="Superset 502", retry_exhausted=True)], "Failed", True),
        # read tool timed out: Retry offered
        ([READ, timeout(True, False)], "Timed out", True),
        # write tool failed (not transient): no Retry
        ([WRITE, end("failed", error="400 bad request")], "Failed", False),
        # read tool completed: no Retry
        ([READ, end("completed", result="3 dashboards")], "Done", False),
        # write tool cancelled: no Retry
        ([WRITE, end("cancelled")], "Cancelled", False),
        # read tool still executing: no Retry yet
        ([READ], "Running", False),
    ],
)
async def test_retry_button_visible_only_for_reads_or_transient_errors(
    events, status_text, retry_visible
) -> None:
    model, _, _ = make()
    feed(model, *events, done())
    async with component(lambda: chat_panel(model)) as user:
        await user.should_see(marker="tool-card")
        await user.should_see(status_text)
        if retry_visible:
            await user.should_see(marker="retry-button")
        else:
            await user.should_not_see(marker="retry-button")
        await user.should_not_see(marker="check-status-button")


async def test_retrying_shows_the_attempt() -> None:
    model, _, _ = make()
    feed(model, READ, ToolRetryEvent(call_id="c1", tool_name="x", attempt=1, error="502"))
    async with component(lambda: chat_panel(model)) as user:
        await user.should_see("Retrying (attempt 1)")


async def test_retry_resends_the_last_message(user: User, core, sign_in) -> None:
    core.replies = [READ, end("failed", error="Superset 502", retryable=True), done()]
    await sign_in("admin")
    user.find(marker="chat-input").type("find sales").trigger("keydown.enter")
    await user.should_see(marker="retry-button", retries=30)
    user.find(marker="retry-button").click()
    await until(lambda: len(core.sent) == 2, "the retry was never sent")
    assert [s["message"] for s in core.sent] == ["find sales", "find sales"]


async def test_write_timeout_says_status_unknown_and_offers_check_status(
    user: User, core, sign_in
) -> None:
    core.replies = [WRITE, timeout(False, True, [check_status_offer("t-1")]), done()]
    core.on_call = [message("Task t-1 is running (2/4)"), done()]
    await sign_in("admin")
    user.find(marker="chat-input").type("deploy").trigger("keydown.enter")
    await user.should_see("Operation status unknown — check Superset", retries=30)
    await user.should_not_see(marker="retry-button")
    user.find(marker="check-status-button").click()
    await user.should_see("Task t-1 is running (2/4)", retries=30)
    assert core.calls[-1]["tool_name"] == "get_task_status"
    assert [s["message"] for s in core.sent] == ["deploy"]  # a direct call, not a turn


async def test_long_task_shows_a_progress_bar(user: User, core, sign_in) -> None:
    core.replies = [
        WRITE,
        ToolProgressEvent(
            call_id="c1", tool_name="x", task_id="t1", step=2, total=4, message="Copying charts"
        ),
    ]
    await sign_in("admin")
    user.find(marker="chat-input").type("migrate").trigger("keydown.enter")
    await user.should_see("Copying charts", retries=30)
    bar = user.find(marker="tool-progress").elements.pop()
    assert bar.visible and bar.value == 0.5
