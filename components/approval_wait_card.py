"""The requester's card of a call that waits for a second person (four-eyes): "Waiting
for a second approver", the call as the requester confirmed it (tool, arguments, the
environment's badge), when the request expires, that a new message withdraws it, and
Withdraw. The card stays until the request is decided (the page checks it: the result, or
the denial with its reason, then replaces it in the chat)."""

from __future__ import annotations

from nicegui import ui

from app.i18n import t
from app.screen.chat_model import AgentChatModel
from components.call_rows import call_rows


def approval_wait_card(model: AgentChatModel) -> ui.card:
    lang = model.lang
    card = ui.card().classes("w-full border-2 border-indigo-500 bg-indigo-50")
    card.props('role="status" aria-live="polite" data-testid="approval-wait-card"')
    card.mark("approval-wait-card")
    card.bind_visibility_from(model, "awaiting_approval", backward=lambda v: v is not None)
    with card:
        with ui.row().classes("w-full items-center gap-2"):
            ui.icon("group").classes("text-2xl text-indigo-800")
            ui.label(t("approval_waiting_title", lang)).classes("text-lg font-semibold").mark(
                "approval-wait-title"
            )
            ui.space()
            badge = ui.label().classes(
                "rounded px-2 py-0.5 text-xs font-bold bg-red-700 text-white"
            )
            badge.bind_text_from(model, "approval_env_badge").mark("approval-env-badge")
        with ui.grid(columns="auto 1fr").classes("w-full gap-x-4 gap-y-1 text-sm"):
            call_rows(model, lang, tool="approval_tool", args="approval_args_text", mark="approval")
        ui.label().classes("text-sm").bind_text_from(model, "approval_hint").mark("approval-hint")
        ui.label(t("approval_waiting_new_message", lang)).classes("text-xs text-gray-700")
        with ui.row().classes("w-full justify-end"):
            ui.button(
                t("approval_withdraw", lang), icon="undo", on_click=model.withdraw_approval
            ).props("outline").bind_enabled_from(
                model, "approval_withdrawing", backward=lambda busy: not busy
            ).mark("approval-withdraw")
    return card
