"""Permission denied: its own card (never a confirm button). Shows the tool, the required
role, and the alternatives as clickable prompts that send that prompt."""

from __future__ import annotations

from typing import Any

from nicegui import binding, ui

from app.i18n import t
from app.screen.chat_model import AgentChatModel


def permission_card(model: AgentChatModel) -> ui.card:
    lang = model.lang
    card = ui.card().classes("w-full border-2 border-gray-500 bg-gray-50").mark("permission-card")
    card.bind_visibility_from(model, "permission_denied", backward=lambda v: v is not None)
    with card:
        with ui.row().classes("w-full items-center gap-2"):
            ui.icon("block").classes("text-2xl text-red-700")
            ui.label(t("permission_denied", lang)).classes("text-lg font-semibold")
            ui.space()
            ui.button(icon="close", on_click=model.close_permission_card).props(
                f'flat round dense aria-label="{t("close", lang)}"'
            ).mark("permission-close")
        ui.label().bind_text_from(model, "permission_text").mark("permission-text")
        ui.label(t("alternatives", lang)).classes("text-sm text-gray-600").bind_visibility_from(
            model, "permission_alternatives", backward=bool
        )
        alternatives = ui.row().classes("gap-2 flex-wrap").mark("permission-alternatives")

    def render(value: list[dict[str, Any]] | None) -> None:
        alternatives.clear()
        with alternatives:
            for alt in value or []:
                prompt = str(alt.get("prompt", ""))
                ui.button(prompt, icon="chat", on_click=lambda p=prompt: model.send(p)).props(
                    "outline no-caps"
                ).mark("alternative")

    class _Watch:  # re-render the prompt buttons when the model's alternatives change
        @property
        def value(self) -> Any:
            return None

        @value.setter
        def value(self, value: list[dict[str, Any]] | None) -> None:
            render(value)

    watcher = _Watch()
    binding.bind_from(watcher, "value", model, "permission_alternatives")
    card._ss_watch = watcher  # type: ignore[attr-defined]
    return card
