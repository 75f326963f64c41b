"""Connection state: reconnecting notice, reload prompt, error and busy hints."""

from __future__ import annotations

from nicegui import ui

from app.i18n import model_name, t
from app.screen.chat_model import AgentChatModel
from components.bind import bind_classes_from
from components.tones import soft

TONES = {
    "idle": "text-gray-500",
    "streaming": "text-blue-700",
    "awaiting_confirmation": "text-amber-700",
    "error": "text-red-700",
    "disconnected": soft("amber"),
    "disconnected_permanent": soft("red"),
}


def connection_banner(model: AgentChatModel) -> ui.element:
    lang = model.lang
    with ui.row().classes("w-full items-center gap-2 px-3 py-1 text-sm rounded") as row:
        ui.spinner(size="sm").bind_visibility_from(
            model, "state", backward=lambda s: s in ("streaming", "disconnected")
        )
        ui.label().bind_text_from(model, "state", backward=lambda s: t(f"state_{s}", lang)).mark(
            "connection-state"
        ).props('aria-live="polite"')
        ui.button(t("reload", lang), icon="refresh", on_click=ui.navigate.reload).props(
            "flat dense"
        ).bind_visibility_from(
            model, "state", backward=lambda s: s == "disconnected_permanent"
        ).mark("reload-button")
        ui.space()
        ui.label().classes("text-xs text-gray-500").bind_text_from(
            model, "answered_by", backward=lambda m: answered_by(m, lang)
        ).mark("answered-by")
    bind_classes_from(row, model, "state", TONES)
    return row.mark("connection-banner")


def answered_by(label: str, lang: str) -> str:
    """ "Answered by <model>" in the page's language ("" before the first answer)."""
    return t("answered_by", lang, model=model_name(label, lang)) if label else ""
