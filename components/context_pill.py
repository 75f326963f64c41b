"""The context pill: what object the chat is about ("No context selected" when none).

A long name (a title from a Superset page can be 256 characters) is cut on screen with an
ellipsis, the whole label in its tooltip: the header keeps its one line."""

from __future__ import annotations

from nicegui import ui

from app.screen.chat_model import AgentChatModel


def context_pill(model: AgentChatModel) -> ui.element:
    pill = ui.row().classes(
        "items-center gap-1 rounded-full bg-white/20 px-3 py-1 no-wrap min-w-0 max-w-[40vw]"
    )
    with pill:
        ui.icon("link").classes("text-sm shrink-0")
        label = ui.label().classes("truncate min-w-0").mark("context-pill")
        label.bind_text_from(model, "context_pill_label")
        with label:  # the whole label, however long (text, never markup)
            ui.tooltip().bind_text_from(model, "context_pill_label")
    return pill
