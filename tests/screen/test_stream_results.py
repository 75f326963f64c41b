"""StreamProcessor: a tool result's view reaches its card, an answer's offers become
buttons, and every error is said in the page's language with the server's text kept."""

from __future__ import annotations

import pytest

from app.events import (
    ErrorEvent,
    MessageEvent,
    TokenEvent,
    ToolEndEvent,
    ToolStartEvent,
)
from app.screen.items import ChatMessage
from app.screen.model import AgentChatModel
from app.screen.stream import StreamProcessor
from app.views import TableView
from tests.events import timed_out
from tests.ui.fakes import FakeClock, FakeConversation, done

TABLE = TableView(columns=[], rows=[], row_count=0)


def setup(lang: str = "en") -> tuple[AgentChatModel, StreamProcessor]:
    model = AgentChatModel(lang=lang, clock=FakeClock())
    return model, StreamProcessor(model)


def test_tool_end_puts_the_view_on_the_card_and_keeps_the_text() -> None:
    m, p = setup()
    p.apply(ToolStartEvent(call_id="1", tool_name="superset_execute_sql"))
    p.apply(
        ToolEndEvent(
            call_id="1",
            tool_name="superset_execute_sql",
            status="completed",
            result="n: 3",
            view=TABLE,
        )
    )
    call = m.tool_call("1")
    assert call is not None and call.view == TABLE and call.result == "n: 3"


def test_a_write_timeout_is_status_unknown_before_the_card_reads_its_status() -> None:
    m, p = setup()
    p.apply(
        ToolStartEvent(
            call_id="1", tool_name="deploy_dashboard", is_write_tool=True, task_id="93ff0a1b"
        )
    )
    p.apply(timed_out("1", "deploy_dashboard", timeout_s=600))
    call = m.tool_call("1")
    assert call is not None and call.status_unknown and call.can_check_status
    assert call.task_id == "93ff0a1b"


@pytest.mark.parametrize(
    "events",
    [
        # a whole message
        [MessageEvent(text="Which one?\n\n- “A” (#1): `check dashboard 1`")],
        # streamed tokens, the offers read once the stream ends
        [
            TokenEvent(text="Which one?\n\n- “A” (#1): "),
            TokenEvent(text="`check dashboard 1`"),
            done(),
        ],
    ],
)
def test_an_answers_offers_are_read_when_it_is_complete(events) -> None:
    m, p = setup()
    for event in events:
        p.apply(event)
    bubble = m.items[-1]
    assert isinstance(bubble, ChatMessage) and bubble.offers is not None
    assert bubble.offers.choices[0].request == "check dashboard 1"


def test_restored_answers_keep_their_offers() -> None:
    m, p = setup()
    text = "No.\n\nContinue without this page's context: `delete dashboard 42 in prod`"
    p.restore(FakeConversation(messages=[{"role": "assistant", "text": text}]))
    assert m.items[0].offers.without_context == "delete dashboard 42 in prod"


@pytest.mark.parametrize(
    ("lang", "code", "message", "shown", "detail"),
    [
        # the guard's refusal by context: the page's words, the server's kept as the detail
        (
            "ru",
            "not_available",
            "tool not available in this context (dashboard page): x",
            "«delete_dashboard» недоступен в контексте этой страницы.",
            "tool not available in this context (dashboard page): x",
        ),
        (
            "en",
            "maintenance",
            "environment 'prod' is in a maintenance window",
            "The environment is in a maintenance window: changes are refused until it ends.",
            "environment 'prod' is in a maintenance window",
        ),
        # an unknown code in English on an English page: the server's text as is
        ("en", "weird", "Something odd happened", "Something odd happened", ""),
        # … and on a Russian page: said in Russian, the English text kept as the detail
        (
            "ru",
            "weird",
            "Something odd happened",
            "Что-то пошло не так (weird).",
            "Something odd happened",
        ),
        # a refusal of the turn: the refusal's own sentence
        ("ru", "unauthorized", "token expired", "Сеанс истёк. Войдите снова.", ""),
    ],
)
def test_errors_follow_the_page_language(lang, code, message, shown, detail) -> None:
    m, p = setup(lang)
    p.apply(ErrorEvent(code=code, message=message, tool_name="delete_dashboard"))
    bubble = m.items[-1]
    kind = "notice" if code == "not_available" else "error"  # a way on follows a notice
    assert (bubble.kind, bubble.text, bubble.detail) == (kind, shown, detail)
    assert m.state == ("idle" if kind == "notice" else "error")


def test_a_restored_tool_card_shows_its_view_and_ignores_one_it_cannot_read() -> None:
    m, p = setup()
    rows = [
        {"call_id": "a", "tool_name": "superset_execute_sql", "status": "completed",
         "view": TABLE.model_dump(mode="json")},
        {"call_id": "b", "tool_name": "x", "status": "completed", "view": {"kind": "nope"}},
    ]  # fmt: skip
    p.restore(FakeConversation(tool_calls=rows))
    assert m.tool_call("a").view == TABLE
    assert m.tool_call("b").view is None
