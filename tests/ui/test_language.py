"""Languages: ?lang=, the user's stored choice, the browser's Accept-Language."""

from __future__ import annotations

from nicegui.testing import User

from app.events import (
    Alternative,
    PermissionDeniedEvent,
    ToolStartEvent,
)
from app.llm import OFFLINE_LABEL
from tests.events import check_status_offer, timed_out
from tests.fixtures.pages import page_model
from tests.ui.made_events import done, message


async def test_browser_language_is_used_without_a_choice(user: User, core, sign_in) -> None:
    user.http_client.headers["accept-language"] = "ru-RU,ru;q=0.9,en;q=0.5"
    await sign_in("analyst")
    await user.should_see("Контекст не выбран", retries=30)
    await user.should_see("Спросите о дашбордах, датасетах, развёртываниях или резервных копиях.")


async def test_language_switch_is_remembered(user: User, core, sign_in) -> None:
    await sign_in("analyst")
    await user.should_see("No context selected", retries=30)
    user.find(marker="language-switch").elements.pop().set_value("ru")
    await user.should_see("Контекст не выбран", retries=30)
    await user.open("/agent")
    await user.should_see("Контекст не выбран", retries=30)
    assert page_model(user).lang == "ru"
    await user.open("/agent?lang=en")  # ?lang= still wins
    await user.should_see("No context selected", retries=30)


async def test_permission_card_and_tool_card_in_russian(user: User, core, sign_in) -> None:
    core.replies = [
        ToolStartEvent(call_id="c1", tool_name="deploy_dashboard", is_write_tool=True),
        timed_out("c1", "deploy_dashboard", message="x", offers=[check_status_offer("t1")]),
        PermissionDeniedEvent(
            tool_name="deploy_dashboard",
            required_role="admin",
            alternatives=[Alternative(action="search", prompt="Найди дашборды")],
        ),
        done(),
    ]
    await sign_in("analyst", target="/agent?lang=ru")
    from nicegui import ui

    user.find(marker="chat-input").type("разверни").trigger("keydown.enter")
    await user.should_see("Доступ запрещён", retries=30)
    await user.should_see("Для «deploy_dashboard» нужна роль admin.")
    await user.should_see("Статус операции неизвестен — проверьте Superset")
    await user.should_see("Проверить статус")
    await user.should_see(kind=ui.button, content="Найди дашборды")
    await user.should_see("Превышено время ожидания")


async def test_sign_out_returns_to_login(user: User, core, sign_in) -> None:
    await sign_in("analyst")
    user.find(marker="sign-out").click()
    await user.should_see(marker="sign-in", retries=30)
    await user.open("/agent")
    await user.should_see(marker="sign-in")


async def test_the_answering_offline_planner_is_named_in_russian(user: User, core, sign_in) -> None:
    core.replies = [message("Готово.", model=OFFLINE_LABEL), done()]
    await sign_in("analyst", target="/agent?lang=ru")
    user.find(marker="chat-input").type("что ты умеешь?").trigger("keydown.enter")
    await user.should_see("Ответил: офлайн-планировщик (детерминированный, без LLM)", retries=30)
