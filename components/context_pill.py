"""The context pill: what object the chat is about ("No context selected" when none)."""

from __future__ import annotations

from nicegui import ui

from app.screen.model import AgentChatModel


def context_pill(model: AgentChatModel) -> ui.element:
    with ui.row().classes("items-center gap-1 rounded-full bg-white/20 px-3 py-1") as pill:
        ui.icon("link").classes("text-sm")
        ui.label().bind_text_from(model, "context_pill_label").mark("context-pill")
    return pill
