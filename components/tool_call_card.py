"""One tool call in the chat: executing, retrying (attempt), completed, failed, timeout,
cancelled. Retry only for read tools or transient errors; a write timeout offers
"Check status" instead. A long task shows a progress bar fed by task status."""

from __future__ import annotations

from nicegui import ui

from app.i18n import t
from app.screen.items import ToolCall
from app.screen.model import AgentChatModel
from components.bind import bind_classes_from

ICONS = {
    "executing": "sync",
    "retrying": "replay",
    "completed": "check_circle",
    "failed": "error",
    "timeout": "timer_off",
    "cancelled": "cancel",
}
TONES = {
    "executing": "border-blue-300",
    "retrying": "border-amber-400",
    "completed": "border-green-400",
    "failed": "border-red-500",
    "timeout": "border-red-500",
    "cancelled": "border-gray-400",
}


def status_text(call: ToolCall, lang: str) -> str:
    if call.status == "retrying":
        return t("tool_retrying", lang, attempt=call.retry_count)
    return t(f"tool_{call.status}", lang)


def tool_call_card(model: AgentChatModel, call: ToolCall) -> ui.card:
    lang = model.lang
    card = ui.card().classes("w-full border-l-4 py-2").mark("tool-card")
    bind_classes_from(card, call, "status", TONES)
    with card:
        with ui.row().classes("w-full items-center gap-2"):
            ui.icon("sync").bind_name_from(call, "status", backward=lambda s: ICONS.get(s, "build"))
            ui.label(call.tool_name).classes("font-mono font-semibold").mark("tool-name")
            ui.label().classes("text-sm text-gray-600").bind_text_from(
                call, "status", backward=lambda _s: status_text(call, lang)
            ).mark("tool-status")
            ui.space()
            ui.button(t("retry", lang), icon="replay", on_click=lambda: model.retry(call)).props(
                "flat dense"
            ).bind_visibility_from(call, "can_retry").mark("retry-button")
            ui.button(
                t("check_status", lang),
                icon="fact_check",
                on_click=lambda: model.check_status(call),
            ).props("flat dense").bind_visibility_from(call, "can_check_status").mark(
                "check-status-button"
            )
        ui.label(call.args_text).classes("font-mono text-xs text-gray-600 whitespace-pre-wrap")
        ui.linear_progress(show_value=False).props("animation-speed=300").bind_value_from(
            call, "progress", backward=lambda p: p or 0.0
        ).bind_visibility_from(call, "progress", backward=lambda p: p is not None).mark(
            "tool-progress"
        )
        ui.label().classes("text-xs text-gray-600").bind_text_from(call, "progress_message")
        goes_on = ui.label(t("tool_goes_on", lang)).classes("text-sm text-amber-800")
        goes_on.bind_visibility_from(call, "goes_on").mark("tool-goes-on")
        ui.label().classes("text-sm text-red-700").bind_text_from(
            call, "error"
        ).bind_visibility_from(call, "error", backward=bool).mark("tool-error")
    return card
