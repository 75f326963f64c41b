"""AgentChatModel: the /agent page's screen model — state and pure transitions only.

One instance per page visit; plain Python (``nicegui.binding`` only, never ``nicegui.ui``).

* Components bind to its fields and report intent through its actions (``send``,
  ``confirm``, ``deny``, ``retry``, ``take_offer``, ``check_status``). The actions check
  what the screen allows (no Confirm during the countdown, no second turn while one runs)
  and hand the intent to the page controller through the injected :class:`Intents`.
* Every field of the model, ``state`` first of all, is written only by the model's own
  methods. The StreamProcessor (events) and the controller (turns, refusals, reconnects)
  call transitions such as :meth:`begin_turn`, :meth:`turn_done`, :meth:`connection_lost`.
* Its parts: the chat items (``items.ChatItems``), the context and the PRODUCTION flag
  (``page_context.ContextState``: it is told each environment's tier, never derives one), the
  confirmation card and its countdown (``confirmation_state.ConfirmationState``: the model's
  clock; :meth:`tick` is driven by the page's ``ui.timer``, or by tests with a fake clock),
  the permission card (``permission``), the edit and reason forms (``edit``), the
  conversation drawer (``history``), a call waiting for a second person
  (``approval_wait``), Stop (``turn_stop``) and the composer's focus and hints
  (``composing``).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from nicegui.binding import BindableProperty

from app.i18n import t
from app.screen.approval_wait import ApprovalWaitState
from app.screen.composing import ComposerState
from app.screen.confirmation_state import CONFIRMABLE, ConfirmationState
from app.screen.edit import EditState
from app.screen.history import HistoryState
from app.screen.intents import Decision, Intents, NotConnected
from app.screen.items import ChatItems, ChatMessage, ToolCall
from app.screen.page_context import ContextState
from app.screen.permission import PermissionState
from app.screen.turn_stop import StopState

if TYPE_CHECKING:
    from app.events import ConfirmRequiredEvent, Offer

STATES = ("idle", "streaming", "awaiting_confirmation", "error",
          "disconnected", "disconnected_permanent")  # fmt: skip
BUSY = ("streaming", "awaiting_confirmation")

__all__ = ["BUSY", "CONFIRMABLE", "STATES", "AgentChatModel", "Decision", "Intents"]


class AgentChatModel(
    ChatItems,
    ContextState,
    ConfirmationState,
    PermissionState,
    EditState,
    HistoryState,
    ApprovalWaitState,
    StopState,
    ComposerState,
):
    state = BindableProperty()
    lang = BindableProperty()
    process_step = BindableProperty()
    is_empty = BindableProperty()
    answered_by = BindableProperty()

    def __init__(
        self,
        *,
        role: str = "analyst",
        lang: str = "en",
        conv_id: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        default_countdown_s: int = 10,
    ) -> None:
        self.role = role
        self.conv_id = conv_id or uuid.uuid4().hex
        self._intents: Intents = NotConnected()  # type: ignore[assignment]
        ChatItems.__init__(self)
        self.state, self.lang = "idle", lang
        ConfirmationState.__init__(self, clock=clock, default_countdown_s=default_countdown_s)
        ContextState.__init__(self)
        self.process_step = "context"
        PermissionState.__init__(self)
        self.is_empty = True
        self.answered_by = ""
        EditState.__init__(self)
        HistoryState.__init__(self)
        ApprovalWaitState.__init__(self)  # a call that waits for a second person
        StopState.__init__(self)
        ComposerState.__init__(self)
        self._cancel_said = False  # this Cancel's "Operation cancelled" is on screen

    def connect(self, intents: Intents) -> None:
        """Route the actions to ``intents`` (the page controller does this once)."""
        self._intents = intents

    def _refresh_context(self) -> None:
        ContextState._refresh_context(self)
        self._refresh_card_target()  # the card's header follows the pill

    def set_language(self, lang: str) -> None:
        self.lang = lang
        self._refresh_context()
        self._refresh_countdown_text()

    # ---- transitions of a turn (called by the controller) ------------------------------
    def begin_turn(self, text: str) -> list[dict[str, str]] | None:
        """Show the user's message and start streaming; returns the history before it, or
        None when the screen refuses the turn (empty text, or a turn already running)."""
        text = text.strip()
        if not text or self.state in BUSY:
            return None
        self.dismiss_permission()
        self.clear_awaiting_approval()  # a new message withdraws a waiting request
        self.composer_hint = ""
        history = self.history()
        self.add_message("user", text)
        self.state, self.process_step = "streaming", "thinking"
        return history

    def begin_call(self, request: str) -> bool:
        """A way on taken as a direct call: show what it asks (``request``, the offer's
        words) as the person's message and start streaming; False while a turn runs."""
        if self.state in BUSY:
            return False
        self.dismiss_permission()
        if request.strip():
            self.add_message("user", request.strip())
        self.state, self.process_step = "streaming", "thinking"
        return True

    def begin_decision(self, decision: Decision) -> str | None:
        """Put the card in its loading state; returns the confirmation id, or None when the
        decision is not allowed now (no card, or Confirm during the countdown)."""
        if not self.can_decide(decision) or self.pending_confirmation is None:
            return None
        self._close_forms()
        self.composer_hint = ""
        self.card_state = f"loading_{decision}"
        self._cancel_said = False
        self._stop_countdown()
        self._refresh_confirm()
        self.state, self.process_step = "streaming", "thinking"
        return self.pending_confirmation.confirmation_id

    def end_stream(self) -> None:
        """The stream ended without a verdict: a running turn becomes idle, its steps at rest."""
        if self.state == "streaming":
            self.state = "idle"
            self._step_at_rest()

    def end_decision(self, decision: Decision, *, answered: bool) -> None:
        """After the resume stream: drop the loading card (unless a new card replaced it).
        A denial always ends with the product's own "Operation cancelled", whatever the
        model said (``answered``): said when the cancelled call's card ended, else here."""
        if self.card_state == f"loading_{decision}":
            self.clear_confirmation()
            self._focus("input")
            if self.state == "awaiting_confirmation":
                self.state = "idle"
                self._step_at_rest()  # a confirmed call with no sentence after it ends here
        if decision == "deny" and not self._cancel_said:
            self.say_cancelled()
        self._cancel_said = False

    def note_call_cancelled(self) -> None:
        """A call's card ended cancelled. After the person's Cancel the product says so in
        its own words, once, before whatever the model then says."""
        if self.card_state == "loading_deny" and not self._cancel_said:
            self.say_cancelled()

    def say_cancelled(self) -> ChatMessage:
        """The product's line after a Cancel (the seed's recovery rule), in the page's
        language."""
        self._cancel_said = True
        return self.add_message("assistant", t("operation_cancelled", self.lang))

    def answer_later(self, text: str) -> None:
        """An answer refused before it was spent (too many of the person's requests are
        running): the reason, and the card back, to answer again."""
        self.card_back()
        self.add_message("assistant", text, "error")
        self.state, self.process_step = "awaiting_confirmation", "confirm"
        self._focus("card")

    def show_error(self, text: str) -> ChatMessage:
        """An error (an error event, or a refused request) as a message; state error."""
        if self.card_state.startswith("loading"):
            self.clear_confirmation()
        self._close_forms()
        message = self.add_message("assistant", text, "error")
        self.state = "error"
        return message

    def connection_lost(self) -> None:
        self.state = "disconnected"

    def connection_gone(self) -> None:
        """Reconnecting failed for good: the page offers a reload."""
        self.state = "disconnected_permanent"

    # ---- transitions of the stream (called by the StreamProcessor) ---------------------
    def note_answering_model(self, label: str) -> None:
        if label:
            self.answered_by = label

    def set_step(self, step: str) -> None:
        self.process_step = step

    def turn_done(self, done_state: str) -> None:
        self.stop_over()
        if self.pending_confirmation is not None and self.card_state:
            self.state = "awaiting_confirmation"
        elif done_state in ("idle", "error"):
            self.state = done_state
        if self.state == "idle":
            self._step_at_rest()

    def _step_at_rest(self) -> None:  # idle: the answer (waiting for a second person: confirm)
        self.process_step = "confirm" if self.awaiting_approval is not None else "answer"

    def show_confirmation(self, event: ConfirmRequiredEvent) -> None:
        self._close_forms()
        self._show_card(event)
        self.state, self.process_step = "awaiting_confirmation", "confirm"
        self._focus("card")

    def reset(self, conv_id: str | None = None) -> None:
        """Start over (a new conversation, or before restoring one)."""
        self.conv_id = conv_id or uuid.uuid4().hex
        self.clear_confirmation()
        self.clear_awaiting_approval()
        self.dismiss_permission()
        self._close_forms()
        self.state, self.process_step, self.is_empty = "idle", "context", True
        self.stopping, self.writes_going_on = False, set()
        self.composer_hint = ""
        self._clear_items()

    # ---- actions (components call these) ------------------------------------------------
    def accepts_message(self, text: str) -> bool:
        """Whether the composer may send ``text`` now. Under a waiting card it may not,
        and the page says so at the composer (a message is never dropped silently); the text
        stays in the box and the focus goes to the card."""
        if not text.strip():
            return False
        if self.state == "awaiting_confirmation" and self.pending_confirmation is not None:
            self.composer_hint = t("confirm_first", self.lang)
            self._focus("card")
            return False
        return self.state not in BUSY

    async def send(self, text: str) -> None:
        if self.accepts_message(text):
            await self._intents.send(text)

    async def confirm(self, args: Mapping[str, Any] | None = None) -> bool:
        """Approve the pending confirmation (``args``: edited arguments); refused while
        the countdown runs."""
        if not self.can_decide("confirm"):
            return False
        self.composer_hint = ""
        await self._intents.decide("confirm", None, None if args is None else dict(args))
        return True

    async def deny(self, reason: str | None = None) -> bool:
        if not self.can_decide("deny"):
            return False
        self.composer_hint = ""
        await self._intents.decide("deny", reason, None)
        return True

    @property
    def last_user_text(self) -> str:
        for item in reversed(self.items):
            if isinstance(item, ChatMessage) and item.role == "user":
                return item.text
        return ""

    async def retry(self, call: ToolCall) -> None:
        """Re-send the last user message (offered for read tools and transient errors)."""
        if call.can_retry and self.last_user_text:
            await self.send(self.last_user_text)

    async def take_offer(self, offer: Offer) -> None:
        """Take a way on the core offered (an answer's button, a card's Check status): the
        controller leaves the page's context when the offer says so, then makes its call
        directly, or sends its request as the person's message."""
        if self.state not in BUSY:
            await self._intents.take_offer(offer)

    async def check_status(self, call: ToolCall) -> None:
        """The card's "Check status": the core's check_status offer for that call."""
        offer = call.check_status_offer
        if offer is not None and call.can_check_status:
            await self.take_offer(offer)
