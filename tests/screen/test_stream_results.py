"""StreamProcessor: a tool result's view reaches its card, and every error is said in the
page's language (a refusal from its typed facts, any other error with the server's text
kept as the detail). The typed offers: tests/screen/test_offers.py."""

from __future__ import annotations

import pytest

from app.events import ErrorEvent, ToolEndEvent, ToolStartEvent
from app.facts import Refusal
from app.screen.chat_model import AgentChatModel
from app.screen.stream import StreamProcessor
from app.views import TableView
from tests.events import check_status_offer, timed_out
from tests.ui.fakes import FakeClock, FakeConversation

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
    p.apply(timed_out("1", "deploy_dashboard", timeout_s=600, offers=[check_status_offer("t")]))
    call = m.tool_call("1")
    assert call is not None and call.status_unknown and call.can_check_status
    assert call.task_id == "93ff0a1b"


@pytest.mark.parametrize(
    ("lang", "code", "message", "shown", "detail"),
    [
        # an error the core names by a code only (no refusal): the page's words, the
        # server's text kept as the detail
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
    assert (bubble.kind, bubble.text, bubble.detail) == ("error", shown, detail)
    assert m.state == "error"


def refused(code: str, message: str = "the guard's English sentence", **facts) -> ErrorEvent:
    """An error event as the guard makes it: the typed refusal beside its English message."""
    refusal = Refusal(code=code, tool_name="delete_dashboard", message=message, **facts)
    return ErrorEvent(code=code, message=message, tool_name="delete_dashboard", refusal=refusal)


@pytest.mark.parametrize(
    ("lang", "event", "kind", "shown", "detail"),
    [
        # the page's context left the call out: which tool, which page, in Russian
        (
            "ru",
            refused("not_available", "'delete_dashboard' is not offered on a dashboard page",
                    page="dashboard"),
            "notice",
            "«delete_dashboard» недоступен на странице дашборда: контекст страницы его исключает.",
            "",
        ),
        (
            "en",
            refused("not_available", page="dataset"),
            "notice",
            "“delete_dashboard” is not available on a dataset page: the page's context leaves "
            "it out.",
            "",
        ),
        # a maintenance window: its environment and its own reason
        (
            "ru",
            refused("maintenance", env_id="prod", reason="upgrade 6.1"),
            "error",
            "«prod» на обслуживании (upgrade 6.1): изменения там запрещены до его окончания.",
            "",
        ),
        # a model's mistake the turn goes on from (the model gets a repair try): a notice
        (
            "ru",
            refused("unknown_tool"),
            "notice",
            "Агент запросил несуществующий инструмент: «delete_dashboard».",
            "",
        ),
        ("en", refused("repeated_call"), "notice",
         "“delete_dashboard” was already called with these arguments in this turn.", ""),
        # a reply of several calls: one ran, the rest set aside, said once with the count
        ("en", refused("one_at_a_time", tools=["list_environments", "get_task_status"]),
         "notice",
         "The model asked for 3 calls at once; one runs at a time, so only "
         "“delete_dashboard” ran.", ""),
        ("ru", refused("one_at_a_time", tools=["list_environments"]), "notice",
         "Модель запросила сразу несколько вызовов (2); выполняется по одному, поэтому "
         "запущен только «delete_dashboard».", ""),
        # a failed check: its findings folded away as the detail
        (
            "en",
            refused("preflight_failed", errors=["chart 7: dataset missing on prod"]),
            "error",
            "The check before “delete_dashboard” failed, so nothing was changed.",
            "chart 7: dataset missing on prod",
        ),
        # an environment that is not usable, by its id
        (
            "ru",
            refused("environment", env_id="qa"),
            "error",
            "«delete_dashboard» не может работать в «qa»: это окружение не настроено или "
            "недоступно.",
            "",
        ),
    ],
)  # fmt: skip
def test_a_refusal_is_said_from_its_facts_never_the_servers_english(
    lang, event, kind, shown, detail
) -> None:
    m, p = setup(lang)
    p.apply(event)
    bubble = m.items[-1]
    assert (bubble.kind, bubble.text, bubble.detail) == (kind, shown, detail)
    assert "English" not in bubble.text + bubble.detail


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
