"""The confirmation card's state and its countdown (the permission card is
``app.screen.permission``).

``ConfirmationState`` is a part of :class:`app.screen.chat_model.AgentChatModel`: its fields are
written only by its own methods, which the model's transitions call.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from nicegui.binding import BindableProperty

from app.i18n import t
from app.screen.items import format_args
from app.screen.uicontext import card_off_context, card_target, env_badge
from app.screen.views import preflight_view
from app.vocab import CARD_STATES

if TYPE_CHECKING:
    from app.events import ConfirmRequiredEvent

CONFIRMABLE: tuple[str, ...] = CARD_STATES


class ConfirmationState:
    lang: str
    ui_context: dict[str, Any] | None  # the page's context (ContextState)
    if TYPE_CHECKING:  # ContextState's

        @property
        def context_env_id(self) -> str | None: ...

    pending_confirmation = BindableProperty()
    card_state = BindableProperty()
    confirm_enabled = BindableProperty()
    confirm_tool = BindableProperty()
    confirm_description = BindableProperty()
    confirm_args_text = BindableProperty()
    confirm_details_text = BindableProperty()
    confirm_reason = BindableProperty()  # why the call is rated so ("templated SQL: …")
    confirm_env_badge = BindableProperty()
    confirm_target = BindableProperty()  # the header's "Dashboard · Sales (#1) · prod"
    confirm_off_context = BindableProperty()  # the card names another object/env than the pill
    confirm_undo = BindableProperty()  # "Can be undone for 7 days" / "This cannot be undone"
    confirm_second_person = BindableProperty()  # a second person approves after this one
    dangerous_countdown = BindableProperty()
    dangerous_countdown_active = BindableProperty()
    countdown_text = BindableProperty()

    def __init__(self, *, clock: Callable[[], float], default_countdown_s: int) -> None:
        self.clock = clock
        self.default_countdown_s = default_countdown_s
        self._countdown_deadline: float | None = None
        self.pending_confirmation = None  # ConfirmRequiredEvent | None
        self.card_state = ""
        self.confirm_enabled = False
        self.confirm_tool = self.confirm_args_text = self.confirm_details_text = ""
        self.confirm_reason = ""
        self.confirm_description = ""
        self.confirm_env_badge = ""
        self.confirm_target, self.confirm_off_context = "", ""
        self.confirm_undo = ""
        self.confirm_second_person = ""
        self.dangerous_countdown, self.dangerous_countdown_active = 0, False
        self.countdown_text = ""

    # ---- countdown --------------------------------------------------------------------
    def start_dangerous_countdown(self, seconds: int | None = None) -> None:
        """Start the card's countdown: ``seconds`` as the core's card says (the policy's
        value); the contract's call without it waits the default."""
        total = self.default_countdown_s if seconds is None else max(0, int(seconds))
        self._countdown_deadline = self.clock() + total
        self.dangerous_countdown = total
        self.dangerous_countdown_active = total > 0
        self._refresh_confirm()

    def tick(self) -> None:
        """Recompute the seconds left on the model's clock (no-op when idle)."""
        if not self.dangerous_countdown_active or self._countdown_deadline is None:
            return
        left = max(0, math.ceil(self._countdown_deadline - self.clock() - 1e-9))
        if left != self.dangerous_countdown:
            self.dangerous_countdown = left
        if left == 0:
            self.dangerous_countdown_active = False
        self._refresh_confirm()

    def _stop_countdown(self) -> None:
        self._countdown_deadline = None
        self.dangerous_countdown, self.dangerous_countdown_active = 0, False

    def _refresh_countdown_text(self) -> None:
        if self.card_state != "dangerous":
            self.countdown_text = ""
        elif self.dangerous_countdown_active:
            self.countdown_text = t("countdown", self.lang, n=self.dangerous_countdown)
        else:
            self.countdown_text = t("countdown_done", self.lang)

    def _refresh_confirm(self) -> None:
        self.confirm_enabled = self.card_state in CONFIRMABLE and not (
            self.card_state == "dangerous" and self.dangerous_countdown_active
        )
        self._refresh_countdown_text()

    # ---- the card ---------------------------------------------------------------------
    def can_decide(self, decision: str) -> bool:
        """Confirm needs an enabled card (countdown over); Cancel any confirmable card."""
        if self.pending_confirmation is None:
            return False
        if decision == "confirm":
            return bool(self.confirm_enabled)
        return self.card_state in CONFIRMABLE

    def _show_card(self, event: ConfirmRequiredEvent) -> None:
        """Fill the card from the event as the guard decided it: the card state and the
        environment's tier come from the event's metadata, never from the page."""
        meta = event.metadata
        self.pending_confirmation = event
        state = "dangerous" if meta.dangerous else meta.card_state
        self.card_state = state if state in CONFIRMABLE else "read"
        self.confirm_tool = meta.tool_name
        self.confirm_description = meta.description or ""
        self.confirm_args_text = format_args(meta.tool_args)
        self.confirm_details_text = _details_text(meta.details)
        self.confirm_reason = meta.risk_reason or ""
        self.confirm_env_badge = env_badge(meta.env_id, meta.env_context, self.lang)
        self.confirm_undo = undo_line(meta.undo, meta.undo_days, self.lang)
        second = t("confirm_second_person", self.lang) if meta.second_person else ""
        self.confirm_second_person = second
        self._refresh_card_target()
        if self.card_state == "dangerous":
            self.start_dangerous_countdown(event.countdown_s)  # the policy's, as the card says
        else:
            self._stop_countdown()
        self._refresh_confirm()

    def _refresh_card_target(self) -> None:
        """The card's object and environment, and a warning when they are not the ones
        the page's pill names (a card never passes for the pill's object)."""
        card = self.pending_confirmation
        if card is None:
            self.confirm_target, self.confirm_off_context = "", ""
            return
        meta, ctx = card.metadata, self.ui_context
        self.confirm_target = card_target(meta.tool_args, meta.env_id, ctx, self.lang)
        off = card_off_context(meta.tool_args, meta.env_id, ctx, self.context_env_id)
        self.confirm_off_context = t("card_off_context", self.lang) if off else ""

    def card_back(self) -> None:
        """The card as it was before an answer that was refused unspent (the user's
        running requests were full): to answer again (a confirm came after any countdown)."""
        event = self.pending_confirmation
        if event is None:
            return
        state = "dangerous" if event.metadata.dangerous else event.metadata.card_state
        self.card_state = state if state in CONFIRMABLE else "read"
        self._refresh_confirm()

    def clear_confirmation(self) -> None:
        self.pending_confirmation = None
        self.confirm_target, self.confirm_off_context = "", ""
        self.confirm_undo = ""
        self.card_state = ""
        self._stop_countdown()
        self._refresh_confirm()


def undo_line(undo: str | None, days: int, lang: str) -> str:
    """The card's line on undoing the call (the core's word: ``ConfirmMetadataV2.undo``);
    "" for a call that changes nothing."""
    if undo == "undoable":
        return t("card_undoable", lang, n=days)
    return t("card_final", lang) if undo == "final" else ""


_PREFLIGHT_KEYS = ("source_env", "target_env", "dashboards", "charts", "datasets",
                   "databases", "database_mapping", "errors", "summary")  # fmt: skip


def _details_text(details: dict[str, Any] | None) -> str:
    """The details the card shows as text; a preflight is shown as a diff table instead."""
    if details and preflight_view(details) is not None:
        details = {k: v for k, v in details.items() if k not in _PREFLIGHT_KEYS}
    return json.dumps(details, ensure_ascii=False, indent=2) if details else ""
