"""The requests an answer offers, as buttons under its bubble: each choice sends its
request; "Continue without this page's context" clears the page's context (and the pill)
and sends the request with the object spelled out. Disabled while a turn runs."""

from __future__ import annotations

from typing import Any

from nicegui import ui

from app.i18n import t
from app.screen.items import ChatMessage
from app.screen.model import BUSY, AgentChatModel
from components.results.live import live_area


def _idle(state: str) -> bool:
    return state not in BUSY


def offer_buttons(model: AgentChatModel, message: ChatMessage) -> ui.element:
    lang = model.lang

    def build(offers: Any) -> None:
        if offers is None:
            return
        if offers.choices:
            with ui.row().classes("gap-2 wrap").mark("choices"):
                for choice in offers.choices:
                    button = ui.button(
                        choice.label, on_click=lambda _e, r=choice.request: model.send(r)
                    ).props("outline no-caps dense color=blue-9")
                    button.tooltip(choice.request)
                    button.bind_enabled_from(model, "state", backward=_idle).mark("choice-button")
        if offers.without_context:
            request = offers.without_context
            with ui.row().classes("items-center gap-2 wrap"):
                button = ui.button(
                    t("continue_without_context", lang),
                    icon="arrow_forward",
                    on_click=lambda: model.continue_without_context(request),
                ).props("no-caps unelevated color=blue-9")
                button.bind_enabled_from(model, "state", backward=_idle)
                button.mark("continue-without-context")
                ui.label(request).classes("font-mono text-sm text-gray-800").mark(
                    "continue-request"
                )

    return live_area(message, "offers", build).mark("offers")
