"""StreamProcessor: each typed event changes the screen model as the page expects."""

from __future__ import annotations

import logging

import pytest
from pydantic import BaseModel

from app import events as ev
from app.screen.chat_model import AgentChatModel
from app.screen.items import ChatMessage, ToolCall
from app.screen.stream import StreamProcessor
from tests.events import check_status_offer, timed_out
from tests.ui.fakes import FakeClock, FakeConversation
from tests.ui.made_events import confirm_event, done


def setup(lang: str = "en") -> tuple[AgentChatModel, StreamProcessor]:
    model = AgentChatModel(lang=lang, clock=FakeClock())
    return model, StreamProcessor(model)


def test_tokens_stream_into_one_bubble_and_message_finalises_it() -> None:
    m, p = setup()
    for tok in ("Hel", "lo"):
        p.apply(ev.TokenEvent(text=tok))
    assert [i.text for i in m.items] == ["Hello"]
    p.apply(ev.MessageEvent(text="Hello, world"))
    assert [i.text for i in m.items] == ["Hello, world"]


def test_turn_start_names_the_answering_model_before_any_text() -> None:
    m, p = setup()
    p.apply(ev.TurnStartEvent(model="offline planner", tools_offered=9))
    assert m.answered_by == "offline planner"
    assert list(m.items) == []  # no bubble until text arrives


def test_tool_start_splits_text_before_and_after_the_card() -> None:
    m, p = setup()
    p.apply(ev.TokenEvent(text="Looking"))
    p.apply(ev.ToolStartEvent(call_id="1", tool_name="search_dashboards"))
    p.apply(ev.TokenEvent(text="Found"))
    assert [type(i) for i in m.items] == [ChatMessage, ToolCall, ChatMessage]


START = ev.ToolStartEvent(call_id="1", tool_name="search_dashboards")
WSTART = ev.ToolStartEvent(call_id="1", tool_name="deploy_dashboard", is_write_tool=True)


def _timeout(
    retryable: bool, unknown: bool, message: str = "timed out", offers=None
) -> ev.ToolTimeoutEvent:
    return timed_out("1", retryable=retryable, unknown=unknown, message=message, offers=offers)


def _end(status: str, **kw) -> ev.ToolEndEvent:
    return ev.ToolEndEvent(call_id="1", tool_name="x", status=status, **kw)


@pytest.mark.parametrize(
    ("start", "event", "status", "can_retry", "can_check"),
    [
        # a read tool retrying: attempt shown, no buttons yet
        (START, ev.ToolRetryEvent(call_id="1", tool_name="x", attempt=1), "retrying", False, False),
        # a read tool that failed: retry offered
        (START, _end("failed", error="x"), "failed", True, False),
        # a read timeout: retry offered
        (START, _timeout(True, False), "timeout", True, False),
        # a write timeout the core offers to check: never retry, check status instead
        (
            WSTART,
            _timeout(False, True, "unknown", [check_status_offer("t1")]),
            "timeout",
            False,
            True,
        ),
        # a write timeout with no offer: no guess at a way to check it, and never a retry
        (WSTART, _timeout(False, True, "unknown"), "timeout", False, False),
        # a write failure that is not transient: no retry
        (WSTART, _end("failed", error="400"), "failed", False, False),
        # a write failure with a transient error: retry offered
        (WSTART, _end("failed", error="503", retryable=True), "failed", True, False),
        # completed: no buttons
        (START, _end("completed"), "completed", False, False),
        # cancelled: no buttons
        (WSTART, _end("cancelled"), "cancelled", False, False),
    ],
)
def test_tool_events_set_status_and_actions(start, event, status, can_retry, can_check) -> None:
    m, p = setup()
    p.apply(start)
    p.apply(event)
    call = m.tool_call("1")
    assert (call.status, call.can_retry, call.can_check_status) == (status, can_retry, can_check)


def test_write_timeout_says_status_unknown() -> None:
    m, p = setup()
    p.apply(WSTART)
    p.apply(_timeout(False, True, "x"))
    p.apply(_end("failed"))
    assert m.tool_call("1").error == "Operation status unknown — check Superset"
    assert m.tool_call("1").status == "timeout"


def test_progress_feeds_the_progress_bar() -> None:
    m, p = setup()
    p.apply(START)
    p.apply(
        ev.ToolProgressEvent(
            call_id="1", tool_name="x", task_id="t1", step=3, total=4, message="copying"
        )
    )
    assert m.tool_call("1").progress == 0.75
    assert m.tool_call("1").task_id == "t1"


@pytest.mark.parametrize(
    "card_state",
    # every confirmable card state arrives as metadata.card_state
    ["read", "write_dev", "write_staging", "write_prod", "dangerous"],
)
def test_confirm_required_sets_card_state(card_state) -> None:
    m, p = setup()
    dangerous = card_state == "dangerous"
    p.apply(confirm_event(card_state, dangerous=dangerous, countdown_s=10))
    assert m.card_state == card_state
    assert m.state == "awaiting_confirmation"
    assert m.confirm_enabled is not dangerous


def test_the_card_names_the_tier_the_guard_resolved_not_one_the_page_derives() -> None:
    # test-main is configured as prod: the guard's event says so, and the card shows it
    m, p = setup()
    p.apply(confirm_event("write_prod", env="test-main", tier="prod"))
    assert m.card_state == "write_prod"
    assert m.confirm_env_badge == "test-main · prod"


def test_confirm_required_without_permission_becomes_permission_denied() -> None:
    m, p = setup()
    p.apply(confirm_event("write_prod", granted=False))
    assert m.card_state == "" and m.pending_confirmation is None
    assert m.permission_denied.required_role == "admin"
    assert m.permission_alternatives == [{"action": "search", "prompt": "find it"}]


def test_permission_denied_event_has_its_own_path() -> None:
    m, p = setup()
    p.apply(
        ev.PermissionDeniedEvent(
            tool_name="deploy_dashboard",
            required_role="admin",
            alternatives=[{"action": "health", "prompt": "check health"}],
        )
    )
    assert m.card_state == ""
    assert m.permission_text == "'deploy_dashboard' requires the admin role."


def test_error_event_shows_error_and_sets_state() -> None:
    m, p = setup()
    p.apply(ev.ErrorEvent(code="no_env", message="No environment"))
    assert m.state == "error"
    assert m.items[-1].kind == "error" and m.items[-1].text == "No environment"


def test_a_refusal_error_event_is_said_in_the_pages_language() -> None:
    m, p = setup(lang="ru")
    p.apply(ev.ErrorEvent(code="unauthorized", message="token expired", status_code=401))
    assert m.items[-1].text == "Сеанс истёк. Войдите снова."


class FromTheFuture(BaseModel):
    type: str = "from_the_future"


def test_unknown_event_is_ignored_with_a_log_line(caplog) -> None:
    m, p = setup()
    with caplog.at_level(logging.WARNING, logger="app.screen.stream"):
        p.apply(FromTheFuture())  # type: ignore[arg-type]
    assert m.items == []
    assert "from_the_future" in caplog.text


def test_final_message_names_the_model_that_answered() -> None:
    m, p = setup()
    p.apply(ev.MessageEvent(text="hi", model="offline planner"))
    assert m.answered_by == "offline planner"


def test_a_finished_card_shows_full_progress_even_after_a_late_report() -> None:
    m, p = setup()
    p.apply(START)
    progress = ev.ToolProgressEvent(
        call_id="1", tool_name="x", task_id="t1", step=1, total=3, message="backing up"
    )
    p.apply(progress)
    p.apply(_end("completed"))
    assert m.tool_call("1").progress == 1.0
    p.apply(progress.model_copy(update={"step": 2}))
    assert m.tool_call("1").progress == 1.0


async def test_run_counts_the_answers_and_done_settles_the_state() -> None:
    m, p = setup()

    async def events():
        for event in (ev.TokenEvent(text="a"), ev.ToolStartEvent(call_id="1", tool_name="x")):
            yield event
        yield ev.TokenEvent(text="b")
        yield done()

    m.begin_turn("go")
    assert await p.run(events()) == 2
    assert m.state == "idle" and m.process_step == "answer"


def test_restore_brings_back_messages_tool_cards_and_the_pending_card() -> None:
    m, p = setup()
    p.restore(
        FakeConversation(
            messages=[{"role": "user", "text": "delete it"}, {"role": "assistant", "text": "ok?"}],
            tool_calls=[
                {"call_id": "a", "tool_name": "search_dashboards", "tool_args": {"query": "x"}},
                {"call_id": "b", "tool_name": "get_task_status", "status": "failed"},
                {"call_id": "call-9", "tool_name": "delete_dashboard"},  # the pending one
            ],
            pending=confirm_event("dangerous", dangerous=True, countdown_s=10),
        )
    )
    texts = [i.text for i in m.items if isinstance(i, ChatMessage)]
    assert texts == ["delete it", "ok?"]
    cards = [(i.tool_name, i.status) for i in m.items if isinstance(i, ToolCall)]
    assert cards == [("search_dashboards", "completed"), ("get_task_status", "failed")]
    assert m.card_state == "dangerous" and m.state == "awaiting_confirmation"
    assert m.dangerous_countdown == 10
