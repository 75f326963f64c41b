"""A person over their pace on /agent (the real core, offline planner): the page says so
in its language, with the wait, and the message comes back into the composer."""

from __future__ import annotations

import asyncio

import pytest
from nicegui import app
from nicegui.testing import User

from tests.fixtures.pages import page_model


@pytest.mark.app_env(user_turns_per_minute=1)  # read when the user fixture runs main.py
@pytest.mark.parametrize(
    ("lang", "said"),
    [
        # English page
        ("en", "You are sending requests faster than allowed. Try again in 60 seconds."),
        # Russian page: the same refusal in Russian
        ("ru", "Вы отправляете запросы чаще, чем разрешено. Повторите через 60 сек."),
    ],
)
async def test_a_turn_over_the_pace_is_said_and_the_text_stays_in_the_composer(
    user: User, sign_in, lang: str, said: str
) -> None:
    await sign_in("analyst", target=f"/agent?lang={lang}")
    app.state.parts.core.limits.clock = lambda: 1_800_000_000.0  # a fixed clock
    model = page_model(user)
    user.find(marker="chat-input").type("list environments").trigger("keydown.enter")
    await user.should_see(marker="chat-items", retries=30)
    for _ in range(600):  # the first turn runs to its end
        if model.state == "idle" and len(model.items) > 1:
            break
        await asyncio.sleep(0.05)
    assert model.state == "idle"
    user.find(marker="chat-input").type("show backups").trigger("keydown.enter")
    await user.should_see(said, retries=50)
    [field] = user.find(marker="chat-input").elements
    assert field.value == "show backups"
    assert model.state == "error"
