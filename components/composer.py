"""The composer: the message input and its Send button, below the chat.

Enter sends. The button is disabled while a turn runs or a confirmation waits.
"""

from __future__ import annotations

from nicegui import ui

from app.i18n import t
from app.screen.model import AgentChatModel


def composer(model: AgentChatModel) -> ui.element:
    lang = model.lang

    async def submit() -> None:
        text = field.value or ""
        if not text.strip() or model.state in ("streaming", "awaiting_confirmation"):
            return
        field.value = ""
        await model.send(text)

    with ui.row().classes("w-full items-center gap-2 no-wrap") as row:
        field = (
            ui.input(placeholder=t("chat_placeholder", lang))
            .classes("flex-grow")
            .props('outlined dense autofocus aria-label="message"')
            .mark("chat-input")
        )
        field.on("keydown.enter", submit)
        ui.button(t("send", lang), icon="send", on_click=submit).bind_enabled_from(
            model, "state", backward=lambda s: s not in ("streaming", "awaiting_confirmation")
        ).mark("send-button")
    return row
