"""The confirmation card's two forms, each bound to the screen model:

* :func:`edit_form` — «Изменить»: one typed field per argument of the tool's args model
  (text, number, switch, a choice of values or of the configured environments), each
  with the argument's description under it (the field's hint: visible without a hover,
  read by a screen reader, and gone with the form; a hover tooltip stayed on the page
  after Esc closed the form under the pointer) and the args model's own message when a
  value is wrong; "Apply and confirm" follows the card's Confirm (disabled during a
  dangerous countdown);
* :func:`cancel_reason` — the card's optional reason for a cancel: Cancel itself takes one
  click (the safe choice is never the slower one), and Enter in the field cancels too.

Esc closes the edit form (an open choice's menu first).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

from app.i18n import t
from app.screen.argsform import EditField
from app.screen.chat_model import AgentChatModel
from components.focus import focus_on

# Esc closes the form, except the Esc that closes an open choice's menu (Quasar's select
# keeps the focus on its combobox, still aria-expanded while that key bubbles up).
_ESC_UNLESS_A_MENU_CLOSES = (
    "(e) => { if (e.target?.getAttribute?.('aria-expanded') !== 'true') emit() }"
)


def _form_box(
    box: ui.element, model: AgentChatModel, form: str, close: Callable[[], Any]
) -> ui.element:
    """``box`` as the card's form ``form`` (marked ``<form>-form``, a rule above it): it
    shows while the card's open form is ``form``; Esc closes it (``close``), unless that
    Esc closes an open choice's menu."""
    box.classes("w-full gap-2 border-t pt-2").mark(f"{form}-form")
    box.bind_visibility_from(model, "card_form", backward=lambda open_form: open_form == form)
    box.on("keydown.esc", close, js_handler=_ESC_UNLESS_A_MENU_CLOSES)
    return box


def edit_field(f: EditField) -> ui.element:
    """One argument's typed field, bound to ``f`` (its hint under it, its error below)."""
    label = f.label + (" *" if f.required else "")
    widget: ui.element
    if f.kind in ("env", "enum"):
        widget = ui.select(f.choices, label=label)
    elif f.kind == "bool":
        widget = ui.switch(label)
    elif f.kind in ("integer", "number"):
        widget = ui.number(label=label, precision=0 if f.kind == "integer" else None)
    elif f.kind in ("longtext", "json"):
        widget = ui.textarea(label=label).props("autogrow")
    else:
        widget = ui.input(label=label)
    widget.bind_value(f, "value")  # type: ignore[attr-defined]
    widget.classes("w-full").props("dense outlined").mark(f"edit-field-{f.name}")
    if f.hint and f.kind == "bool":  # a switch has no hint of its own
        ui.label(f.hint).classes("text-xs text-gray-600").mark(f"edit-hint-{f.name}")
    elif f.hint:
        widget.props["hint"] = f.hint  # (a prop value, not parsed: any text is safe)
    error = ui.label().classes("text-xs text-red-700").mark(f"edit-error-{f.name}")
    error.bind_text_from(f, "error").bind_visibility_from(f, "error", backward=bool)
    return widget


def edit_form(model: AgentChatModel) -> ui.element:
    lang = model.lang
    box = _form_box(ui.column(), model, "edit", model.cancel_edit)
    with box:
        ui.label(t("edit_title", lang)).classes("font-semibold")
        ui.label(t("edit_hint", lang)).classes("text-xs text-gray-600")
        fields = ui.column().classes("w-full gap-1").mark("edit-fields")
        problem = ui.label().classes("text-sm text-red-700").mark("edit-error")
        problem.bind_text_from(model, "edit_error")
        problem.bind_visibility_from(model, "edit_error", backward=bool)
        with ui.row().classes("w-full justify-end gap-2"):
            ui.button(t("back", lang), on_click=model.cancel_edit).props("flat").mark("edit-back")
            apply = ui.button(t("edit_apply", lang), on_click=model.submit_edit)
            apply.bind_enabled_from(model, "confirm_enabled").mark("edit-submit")

    def render() -> None:
        fields.clear()
        with fields:
            widgets = [edit_field(f) for f in model.edit_fields]
        if widgets:
            focus_on(widgets[0], model, "edit")

    model.on_form_changed(render)
    return box


def cancel_reason(model: AgentChatModel, *, for_approver: bool = False) -> ui.element:
    """The card's optional reason for a cancel (Cancel itself takes one click;
    Enter in this field cancels too); ``for_approver``: a second person's denial, whose
    reason reaches the requester."""
    lang = model.lang
    label = t("approval_deny_reason" if for_approver else "deny_reason", lang)
    reason = ui.input(label).bind_value(model, "deny_reason")
    reason.classes("flex-grow").props('dense outlined maxlength="2000"').mark("deny-reason")
    reason.on("keydown.enter", model.cancel_card)
    return reason
