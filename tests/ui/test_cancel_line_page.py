"""After a Cancel the chat shows the product's own "Operation cancelled" («Операция
отменена»), whatever the model then says: here the offline planner, whose own sentence
("Cancelled — not deleting dashboard 2 in dev.") used to be the only line. The real
local model's turn: tests/llm/test_llm_cancel_line.py."""

from __future__ import annotations

import pytest
from nicegui import ui
from nicegui.testing import User

from app.screen.items import ChatMessage
from tests.fixtures.pages import page_model


@pytest.mark.parametrize(
    ("ask", "line", "planner"),
    [
        ("delete dashboard 2 in dev", "Operation cancelled", "Cancelled"),
        ("удали дашборд 2 в dev", "Операция отменена", "Вы отменили"),
    ],
)
@pytest.mark.app_env(dangerous_countdown_s=60)
async def test_cancel_shows_the_products_line_whatever_the_planner_says(
    user: User, sign_in, ask: str, line: str, planner: str
) -> None:
    lang = "ru" if line.startswith("О") else "en"
    await sign_in("admin", target=f"/agent?envId=dev&lang={lang}")
    user.find(marker="chat-input").type(ask).trigger("keydown.enter")
    await user.should_see(marker="confirmation-card", retries=100)
    model = page_model(user)
    assert model.pending_confirmation.metadata.tool_name == "delete_dashboard"
    user.find(kind=ui.button, marker="cancel-button").click()
    await user.should_see(line, retries=100)
    await user.should_not_see(marker="confirmation-card", retries=100)
    said = [i.text for i in model.items if isinstance(i, ChatMessage) and i.role == "assistant"]
    ours = said.index(line)
    assert any(text.startswith(planner) for text in said[ours + 1 :]), said  # the model's after
    assert said.count(line) == 1
