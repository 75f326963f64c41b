"""The confirmation card: seven states with risk toning, env badge, tool, arguments,
preflight details, and for dangerous calls the model's countdown (the card only reads
``dangerous_countdown``; an ``aria-live="assertive"`` region announces it every second).
Its header names the call's object and environment (and warns when they are not the
ones the page's pill names); a line says whether the call can be undone (and for how
long) before the person confirms. Cancel takes one click, with the optional reason typed
beside it; Edit («Изменить») opens the card's form (``components.card_forms``); the
card takes the focus when it appears.
"""

from __future__ import annotations

from nicegui import ui

from app.i18n import t
from app.screen.chat_model import CONFIRMABLE, AgentChatModel
from components.bind import bind_classes_from
from components.call_rows import call_rows
from components.card_forms import cancel_reason, edit_form
from components.focus import focus_on
from components.results.diff import preflight_diff

CARD_STATES = (*CONFIRMABLE, "loading_confirm", "loading_deny")
TONES = {
    "read": "bg-blue-50 border-blue-400",
    "write_dev": "bg-green-50 border-green-500",
    "write_staging": "bg-amber-50 border-amber-500",
    "write_prod": "bg-orange-100 border-red-500",
    "dangerous": "bg-red-100 border-red-700",
    "loading_confirm": "bg-gray-100 border-gray-400",
    "loading_deny": "bg-gray-100 border-gray-400",
}
BADGE_TONES = {
    "write_prod": "bg-red-700 text-white",
    "dangerous": "bg-red-700 text-white",
    "write_staging": "bg-amber-600 text-white",
    "write_dev": "bg-green-700 text-white",
}


def confirmation_card(model: AgentChatModel, *, for_approver: bool = False) -> ui.card:
    """The card on ``model``. ``for_approver``: the same card shown to a second person
    (``/approvals``): Approve / Deny instead of Confirm / Cancel, no Edit (an approval is
    bound to the arguments the requester confirmed)."""
    lang = model.lang
    card = ui.card().classes("w-full border-2").props('role="dialog"').mark("confirmation-card")
    card.bind_visibility_from(model, "card_state", backward=bool)
    focus_on(card, model, "card")
    bind_classes_from(card, model, "card_state", TONES)
    with card:
        with ui.row().classes("w-full items-center gap-2"):
            ui.icon("gpp_maybe").classes("text-2xl").bind_name_from(
                model,
                "card_state",
                backward=lambda s: "dangerous" if s == "dangerous" else "gpp_maybe",
            )
            ui.label().classes("text-lg font-semibold").bind_text_from(
                model, "card_state", backward=lambda s: t(f"confirm_title_{s}", lang) if s else ""
            ).mark("confirm-title")
            ui.space()
            target = ui.label().classes("text-sm font-semibold").mark("confirm-target")
            target.bind_text_from(model, "confirm_target")
            target.bind_visibility_from(model, "confirm_target", backward=bool)
            badge = ui.label().classes("rounded px-2 py-0.5 text-xs font-bold").mark("env-badge")
            badge.bind_text_from(model, "confirm_env_badge")
            bind_classes_from(
                badge, model, "card_state", BADGE_TONES, default="bg-gray-600 text-white"
            )
        off = ui.label().classes("text-sm font-semibold text-red-800").mark("confirm-off-context")
        off.props('role="alert"')
        off.bind_text_from(model, "confirm_off_context")
        off.bind_visibility_from(model, "confirm_off_context", backward=bool)
        ui.label().classes("text-base").bind_text_from(
            model, "confirm_description"
        ).bind_visibility_from(model, "confirm_description", backward=bool).mark(
            "confirm-description"
        )
        with ui.grid(columns="auto 1fr").classes("w-full gap-x-4 gap-y-1 text-sm"):
            call_rows(model, lang, tool="confirm_tool", args="confirm_args_text", mark="confirm")
            why = ui.label(t("card_why", lang)).classes("text-gray-600")
            why.bind_visibility_from(model, "confirm_reason", backward=bool)
            reason = ui.label().classes("font-semibold").mark("confirm-reason")
            reason.bind_text_from(model, "confirm_reason")
            reason.bind_visibility_from(model, "confirm_reason", backward=bool)
        with (
            ui.column()
            .classes("w-full")
            .bind_visibility_from(model, "confirm_details_text", backward=bool)
        ):
            ui.label(t("details", lang)).classes("text-gray-600 text-sm")
            ui.code("").classes("w-full text-xs").bind_content_from(
                model, "confirm_details_text"
            ).mark("confirm-details")
        preflight_diff(model)  # what the run creates or overwrites on its target
        undo = ui.row().classes("items-center gap-1 text-sm").mark("confirm-undo")
        undo.bind_visibility_from(model, "confirm_undo", backward=bool)
        with undo:
            ui.icon("undo").bind_name_from(
                model, "pending_confirmation", backward=lambda e: _undo_icon(e)
            )
            ui.label().bind_text_from(model, "confirm_undo").mark("confirm-undo-text")
        if not for_approver:  # after this person, a second one approves (four-eyes)
            second = ui.label().classes("text-sm font-semibold text-indigo-800")
            second.bind_text_from(model, "confirm_second_person").mark("confirm-second-person")
            second.bind_visibility_from(model, "confirm_second_person", backward=bool)
        countdown = ui.label().classes("font-semibold text-red-800").mark("countdown")
        countdown.props('aria-live="assertive" role="timer"')
        countdown.bind_text_from(model, "countdown_text")
        countdown.bind_visibility_from(model, "card_state", backward=lambda s: s == "dangerous")
        actions = ui.row().classes("w-full items-center justify-end gap-2 no-wrap")
        actions.bind_visibility_from(model, "card_form", backward=lambda form: not form)
        with actions:
            cancel_reason(model, for_approver=for_approver).bind_visibility_from(
                model, "card_state", backward=lambda s: s in CONFIRMABLE
            )
            ui.spinner(size="md").bind_visibility_from(
                model, "card_state", backward=lambda s: s.startswith("loading") if s else False
            ).mark("confirm-spinner")
            if not for_approver:
                ui.button(t("edit", lang), icon="edit", on_click=model.begin_edit).props(
                    "flat"
                ).bind_enabled_from(model, "card_state", backward=lambda s: s in CONFIRMABLE).mark(
                    "edit-button"
                )
            ui.button(
                t("deny" if for_approver else "cancel", lang), on_click=model.cancel_card
            ).props("outline").bind_enabled_from(
                model, "card_state", backward=lambda s: s in CONFIRMABLE
            ).mark("cancel-button")
            label = t("approve" if for_approver else "confirm", lang)
            confirm = ui.button(label, on_click=lambda: model.confirm())
            confirm.bind_enabled_from(model, "confirm_enabled").mark("confirm-button")
            bind_classes_from(confirm, model, "card_state", {"dangerous": "!bg-red-700"})
        if not for_approver:
            edit_form(model)
    return card


def _undo_icon(event: object) -> str:
    undo = getattr(getattr(event, "metadata", None), "undo", None)
    return "undo" if undo == "undoable" else "block"
