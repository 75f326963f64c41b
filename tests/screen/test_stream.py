"""StreamProcessor: each event type changes the screen model as the page expects."""

from __future__ import annotations

import pytest

from app.screen.items import ChatMessage, ToolCall
from app.screen.model import AgentChatModel
from tests.ui.fakes import ENVS, FakeClock, ScriptedBackend, confirm_event


def model() -> AgentChatModel:
    return AgentChatModel(
        ScriptedBackend(), user_id="u", user_jwt="j", environments=ENVS, clock=FakeClock()
    )


def test_tokens_stream_into_one_bubble_and_message_finalises_it() -> None:
    m = model()
    for tok in ("Hel", "lo"):
        m.processor.apply({"type": "token", "text": tok})
    assert [i.text for i in m.items] == ["Hello"]
    m.processor.apply({"type": "message", "text": "Hello, world"})
    assert [i.text for i in m.items] == ["Hello, world"]


def test_turn_start_names_the_answering_model_before_any_text() -> None:
    m = model()
    m.processor.apply({"type": "turn_start", "model": "offline planner", "tools_offered": 9})
    assert m.answered_by == "offline planner"
    assert list(m.items) == []  # no bubble until text arrives


def test_tool_start_splits_text_before_and_after_the_card() -> None:
    m = model()
    m.processor.apply({"type": "token", "text": "Looking"})
    m.processor.apply({"type": "tool_start", "call_id": "1", "tool_name": "search_dashboards"})
    m.processor.apply({"type": "token", "text": "Found"})
    assert [type(i) for i in m.items] == [ChatMessage, ToolCall, ChatMessage]


START = {"type": "tool_start", "call_id": "1", "tool_name": "search_dashboards"}
WSTART = {**START, "tool_name": "deploy_dashboard", "is_write_tool": True}


@pytest.mark.parametrize(
    ("start", "event", "status", "can_retry", "can_check"),
    [
        # a read tool retrying: attempt shown, no buttons yet
        (START, {"type": "tool_retry", "call_id": "1", "attempt": 1}, "retrying", False, False),
        # a read tool that failed: retry offered
        (
            START,
            {"type": "tool_end", "call_id": "1", "status": "failed", "error": "x"},
            "failed",
            True,
            False,
        ),
        # a read timeout: retry offered
        (
            START,
            {
                "type": "tool_timeout",
                "call_id": "1",
                "timeout_s": 30,
                "retryable": True,
                "status_unknown": False,
                "message": "timed out",
            },
            "timeout",
            True,
            False,
        ),
        # a write timeout: never retry, check status instead
        (
            WSTART,
            {
                "type": "tool_timeout",
                "call_id": "1",
                "timeout_s": 30,
                "retryable": False,
                "status_unknown": True,
                "message": "unknown",
            },
            "timeout",
            False,
            True,
        ),
        # a write failure that is not transient: no retry
        (
            WSTART,
            {"type": "tool_end", "call_id": "1", "status": "failed", "error": "400"},
            "failed",
            False,
            False,
        ),
        # a write failure with a transient error: retry offered
        (
            WSTART,
            {
                "type": "tool_end",
                "call_id": "1",
                "status": "failed",
                "error": "503",
                "retryable": True,
            },
            "failed",
            True,
            False,
        ),
        # completed: no buttons
        (
            START,
            {"type": "tool_end", "call_id": "1", "status": "completed"},
            "completed",
            False,
            False,
        ),
        # cancelled: no buttons
        (
            WSTART,
            {"type": "tool_end", "call_id": "1", "status": "cancelled"},
            "cancelled",
            False,
            False,
        ),
    ],
)
def test_tool_events_set_status_and_actions(start, event, status, can_retry, can_check) -> None:
    m = model()
    m.processor.apply(start)
    m.processor.apply(event)
    call = m.tool_call("1")
    assert (call.status, call.can_retry, call.can_check_status) == (status, can_retry, can_check)


def test_write_timeout_says_status_unknown() -> None:
    m = model()
    m.processor.apply(WSTART)
    m.processor.apply(
        {
            "type": "tool_timeout",
            "call_id": "1",
            "timeout_s": 30,
            "retryable": False,
            "status_unknown": True,
            "message": "x",
        }
    )
    m.processor.apply({"type": "tool_end", "call_id": "1", "status": "failed"})
    assert m.tool_call("1").error == "Operation status unknown — check Superset"
    assert m.tool_call("1").status == "timeout"


def test_progress_feeds_the_progress_bar() -> None:
    m = model()
    m.processor.apply(START)
    m.processor.apply(
        {
            "type": "tool_progress",
            "call_id": "1",
            "tool_name": "x",
            "task_id": "t1",
            "step": 3,
            "total": 4,
            "message": "copying",
        }
    )
    assert m.tool_call("1").progress == 0.75
    assert m.tool_call("1").task_id == "t1"


@pytest.mark.parametrize(
    "card_state",
    # every confirmable card state arrives as metadata.card_state
    ["read", "write_dev", "write_staging", "write_prod", "dangerous"],
)
def test_confirm_required_sets_card_state(card_state) -> None:
    m = model()
    dangerous = card_state == "dangerous"
    m.processor.apply(confirm_event(card_state, dangerous=dangerous, countdown_s=10))
    assert m.card_state == card_state
    assert m.state == "awaiting_confirmation"
    assert m.confirm_enabled is not dangerous


def test_confirm_required_without_permission_becomes_permission_denied() -> None:
    m = model()
    m.processor.apply(confirm_event("write_prod", granted=False))
    assert m.card_state == "" and m.pending_confirmation is None
    assert m.permission_denied["required_role"] == "admin"
    assert m.permission_alternatives == [{"action": "search", "prompt": "find it"}]


def test_permission_denied_event_has_its_own_path() -> None:
    m = model()
    m.processor.apply(
        {
            "type": "permission_denied",
            "tool_name": "deploy_dashboard",
            "required_role": "admin",
            "alternatives": [{"action": "health", "prompt": "check health"}],
        }
    )
    assert m.card_state == ""
    assert m.permission_text == "'deploy_dashboard' requires the admin role."


def test_error_event_shows_error_and_sets_state() -> None:
    m = model()
    m.processor.apply({"type": "error", "code": "no_env", "message": "No environment"})
    assert m.state == "error"
    assert m.items[-1].kind == "error" and m.items[-1].text == "No environment"


def test_unknown_event_is_ignored() -> None:
    m = model()
    m.processor.apply({"type": "from_the_future"})
    assert m.items == []


def test_final_message_names_the_model_that_answered() -> None:
    m = model()
    m.processor.apply({"type": "message", "text": "hi", "model": "offline planner"})
    assert m.answered_by == "offline planner"


def test_a_finished_card_shows_full_progress_even_after_a_late_report() -> None:
    m = model()
    m.processor.apply(START)
    progress = {
        "type": "tool_progress",
        "call_id": "1",
        "tool_name": "x",
        "task_id": "t1",
        "step": 1,
        "total": 3,
        "message": "backing up",
    }
    m.processor.apply(progress)
    m.processor.apply({"type": "tool_end", "call_id": "1", "tool_name": "x", "status": "completed"})
    assert m.tool_call("1").progress == 1.0
    m.processor.apply(dict(progress, step=2))
    assert m.tool_call("1").progress == 1.0
