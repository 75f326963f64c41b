"""The red PRODUCTION banner atop the chat panel, visible while the context is prod."""

from __future__ import annotations

from nicegui import ui

from app.i18n import t
from app.screen.chat_model import AgentChatModel


def prod_banner(model: AgentChatModel) -> ui.element:
    with ui.row().classes(
        "w-full items-center gap-2 bg-red-700 text-white px-4 py-2 rounded-t"
    ) as banner:
        ui.icon("warning").classes("text-xl")
        ui.label(t("production", model.lang)).classes("font-bold tracking-wider")
        ui.label(t("production_hint", model.lang)).classes("text-sm opacity-90")
    banner.props('role="alert"').mark("prod-banner")
    return banner.bind_visibility_from(model, "is_prod_context")
