"""Context is a help, never a dead end (NiceGUI user simulation, English and Russian): a
refusal by the page's context is said in the page's language with one click onwards,
which clears the context and the pill and leads to the confirmation card; choices are
buttons; Check status asks for the task by its id, leaving a dashboard page's context."""

from __future__ import annotations

from typing import Any

import pytest
from nicegui import ui
from nicegui.testing import User

from app.events import ErrorEvent
from tests.events import write_timed_out
from tests.ui.conftest import page_model
from tests.ui.fakes import confirm_event, done, message, token

DEEP = "/agent?objectType=dashboard&objectId=42&objectName=Sales&envId=prod"
CASES = {
    "en": {
        "ask": "delete this dashboard",
        "request": "delete dashboard 42 in prod",
        "answer": "On the dashboard page I can't delete a dashboard: the page's context leaves "
        "it out.\n\nContinue without this page's context: `delete dashboard 42 in prod`",
        "error": "“delete_dashboard” is not available in this page's context.",
        "button": "Continue without this page's context",
        "pill": "No context selected",
        "card": "Dangerous action",
    },
    "ru": {
        "ask": "удали этот дашборд",
        "request": "удали дашборд 42 на prod",
        "answer": "На странице дашборда я не могу удалить дашборд: контекст страницы это "
        "исключает.\n\nПродолжить без контекста страницы: `удали дашборд 42 на prod`",
        "error": "«delete_dashboard» недоступен в контексте этой страницы.",
        "button": "Продолжить без контекста страницы",
        "pill": "Контекст не выбран",
        "card": "Опасное действие",
    },
}
SERVER_TEXT = "tool not available in this context (dashboard page): delete_dashboard"


def script(case: dict[str, str]):
    def reply(text: str) -> list[Any]:
        if text == case["request"]:  # spelled out, without the context: the confirmation
            return [
                confirm_event(
                    "dangerous", tool="delete_dashboard", env="prod", dangerous=True, countdown_s=10
                ),
                done("awaiting_confirmation"),
            ]
        return [
            token("…"),
            ErrorEvent(code="not_available", message=SERVER_TEXT, tool_name="delete_dashboard"),
            message(case["answer"]),
            done(),
        ]

    return reply


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_context_refusal_offers_one_click_to_the_confirmation(
    user: User, core, sign_in, lang
) -> None:
    case = CASES[lang]
    core.replies = script(case)
    await sign_in("admin", target=f"{DEEP}&lang={lang}")
    user.find(marker="chat-input").type(case["ask"]).trigger("keydown.enter")
    await user.should_see(case["error"], retries=30)
    await user.should_see(case["button"])
    model = page_model(user)
    refusal = next(m for m in model.items if getattr(m, "kind", "") == "notice")
    assert refusal.detail == SERVER_TEXT  # the server's English kept only as the detail
    detail = next(iter(user.find(marker="message-detail").elements))
    assert isinstance(detail, ui.expansion) and detail.value is False  # folded away
    user.find(kind=ui.button, content=case["button"]).click()
    await user.should_see(case["card"], retries=30)
    await user.should_see(case["pill"])
    sent = core.sent[-1]
    assert sent["message"] == case["request"] and sent["uicontext"] is None
    assert model.ui_context is None


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_choices_are_buttons_that_send_their_request(user: User, core, sign_in, lang):
    question = {"en": "Which one do you mean?", "ru": "Какой из них?"}[lang]
    core.replies = [
        message(
            f"{question}\n\n- “Sales demo” (#7): `check the health of dashboard 7 in dev`\n"
            "- “Sales old” (#9): `check the health of dashboard 9 in dev`"
        ),
        done(),
    ]
    await sign_in("admin", target=f"/agent?lang={lang}")
    user.find(marker="chat-input").type("check Sales").trigger("keydown.enter")
    await user.should_see(question, retries=30)
    core.replies = [message("ok"), done()]
    user.find(kind=ui.button, content="“Sales old” (#9)").click()
    await user.should_see("ok", retries=30)
    assert core.sent[-1]["message"] == "check the health of dashboard 9 in dev"


@pytest.mark.parametrize(
    ("lang", "asked"),
    [("en", "check the status of task 93ff0a1b"), ("ru", "проверь статус задачи 93ff0a1b")],
)
async def test_check_status_on_a_dashboard_page_asks_for_the_task_without_the_context(
    user: User, core, sign_in, lang, asked
) -> None:
    core.replies = write_timed_out("93ff0a1b")
    await sign_in("admin", target=f"{DEEP}&lang={lang}")
    user.find(marker="chat-input").type("deploy").trigger("keydown.enter")
    await user.should_see(marker="check-status-button", retries=30)
    core.replies = [message("running"), done()]
    user.find(marker="check-status-button").click()
    await user.should_see(CASES[lang]["pill"], retries=30)
    assert core.sent[-1]["message"] == asked and core.sent[-1]["uicontext"] is None
