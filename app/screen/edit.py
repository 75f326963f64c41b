"""The confirmation card's two forms, a part of
:class:`app.screen.chat_model.AgentChatModel`:

* **Edit** («Изменить») — the tool's arguments as typed fields (``app.screen.argsform``),
  checked with the args model's own messages before anything is sent; "Apply and
  confirm" answers the confirmation with the edited arguments (the server checks them
  against policy again: a higher risk or another environment comes back as a new card);
* **Cancel** — one click (the safe choice is never the slower one); the card's optional
  reason field, when filled, goes with it to the model and the audit log.

Esc closes the edit form. The forms close whenever the card changes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from nicegui.binding import BindableProperty

from app.i18n import t
from app.screen.argsform import EditField, args_from_fields, fields_from_schema

if TYPE_CHECKING:
    from app.events import ConfirmRequiredEvent
    from app.screen.uicontext import EnvOption


class EditState:
    pending_confirmation: ConfirmRequiredEvent | None
    lang: str
    environments: list[EnvOption]
    _intents: Any
    # provided by the model's other parts (annotations only: no attribute is defined here)
    can_decide: Callable[[str], bool]
    confirm: Callable[..., Awaitable[bool]]
    deny: Callable[..., Awaitable[bool]]
    _focus: Callable[[str], None]
    card_form = BindableProperty()  # "" | "edit": the form open on the card
    edit_error = BindableProperty()
    deny_reason = BindableProperty()  # the card's optional reason for a cancel

    def __init__(self) -> None:
        self.edit_fields: list[EditField] = []
        self._form_listeners: list[Callable[[], object]] = []
        self.card_form, self.edit_error, self.deny_reason = "", "", ""

    @property
    def editing(self) -> bool:
        return bool(self.card_form == "edit")

    def on_form_changed(self, callback: Callable[[], object]) -> None:
        """The form component rebuilds its fields when a new form opens."""
        self._form_listeners.append(callback)

    # ---- edit --------------------------------------------------------------------------
    def begin_edit(self) -> bool:
        """Open the form with the card's arguments (a confirmable card only)."""
        card = self.pending_confirmation
        if card is None or not self.can_decide("deny"):
            return False
        meta = card.metadata
        envs = [(env.id, env.label) for env in self.environments]
        schema = self._intents.args_schema(meta.tool_name, self.lang)  # labels, hints
        self.edit_fields = fields_from_schema(schema, meta.tool_args, envs)
        self.edit_error = ""
        for callback in self._form_listeners:
            callback()
        self.card_form = "edit"
        self._focus("edit")
        return True

    def cancel_edit(self) -> None:
        if self.card_form == "edit":
            self.card_form, self.edit_error = "", ""

    async def submit_edit(self) -> bool:
        """Check the edited arguments with the args model; when they pass, confirm with
        them. False (and the messages shown by the fields) when they do not."""
        card = self.pending_confirmation
        if card is None or not self.editing:
            return False
        args, unreadable = args_from_fields(self.edit_fields)
        tool, lang = card.metadata.tool_name, self.lang
        errors = {name: t("edit_not_json", lang) for name in unreadable} or (
            self._intents.validate_args(tool, args, lang)  # the args model's, in ``lang``
        )
        for f in self.edit_fields:
            f.error = errors.get(f.name, "")
        known = {f.name for f in self.edit_fields}
        self.edit_error = "; ".join(f"{k}: {v}" for k, v in errors.items() if k not in known)
        if errors:
            return False
        if not self.can_decide("confirm"):
            return False  # a dangerous card's countdown still runs: the button says so
        self.card_form = ""
        return await self.confirm(args=args)

    # ---- cancel: one click, with the optional reason typed on the card ------------------
    async def cancel_card(self) -> bool:
        """Cancel the pending call at once (the safe choice is never the slower one); a
        reason typed in the card's optional field goes with it to the model and the audit
        log."""
        if self.pending_confirmation is None or not self.can_decide("deny"):
            return False
        reason = (self.deny_reason or "").strip() or None
        return await self.deny(reason)

    def _close_forms(self) -> None:
        """The card changed (a new one, a decision, a reset): no form stays open, and no
        reason typed for another card stays in its field."""
        self.card_form, self.edit_error, self.deny_reason = "", "", ""
