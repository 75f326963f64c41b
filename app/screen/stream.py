"""StreamProcessor: the only code that turns agent events into screen state.

It consumes the core's typed event objects (``app.events``: no SSE text, no dicts)
and changes the screen through a narrow interface, :class:`ChatSink`, which
``AgentChatModel`` implements: the processor writes the chat items' fields (a token into
its bubble, a tool card's status) and calls the model's transitions for everything else.
It neither imports the model nor calls the core; the page controller feeds it. The tool
cards' events are handled by its part :class:`~app.screen.tool_events.ToolEvents`.

The ways on (``app.events.Offer``) arrive typed on the events, whatever model answered: a
``message``'s offers go under that answer, a ``tool_timeout``'s on its tool card ("Check
status"), and an ``error``'s under its notice when the run ends without a message (with a
message, the message carries them). Nothing is read back from a model's text.

An event type it does not know is ignored with a log line, so a newer core never breaks
an older page.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from app.i18n import error_text
from app.screen.items import ChatMessage
from app.screen.permission import PermissionDenial
from app.screen.refusals import is_notice, refusal_notice
from app.screen.restore import (
    ConversationLike,
    denied_on_its_card,
    in_order,
    restored_call,
    restored_offers,
    restored_refusal,
)
from app.screen.tool_events import ToolEvents, ToolSink

if TYPE_CHECKING:
    from app import events
    from app.events import Alternative, Event, Offer

log = logging.getLogger(__name__)


class ChatSink(ToolSink, Protocol):
    """What the processor needs of the screen model (the tool cards' needs too)."""

    conv_id: str

    def add_message(self, role: str, text: str, kind: str = "text") -> ChatMessage: ...
    def note_answering_model(self, label: str) -> None: ...
    def show_error(self, text: str) -> ChatMessage: ...
    def turn_done(self, done_state: str) -> None: ...
    def show_confirmation(self, event: events.ConfirmRequiredEvent) -> None: ...
    def show_awaiting_approval(self, event: events.AwaitingApprovalEvent) -> None: ...
    def show_permission_denied(self, denial: PermissionDenial) -> None: ...
    def note_stopped(self, writes_in_flight: Sequence[str]) -> None: ...
    def say_cancelled(self) -> ChatMessage: ...
    def reset(self, conv_id: str | None = None) -> None: ...


class StreamProcessor(ToolEvents):
    sink: ChatSink

    def __init__(self, sink: ChatSink) -> None:
        self.sink = sink
        self._open: ChatMessage | None = None  # the assistant bubble tokens stream into
        self._answers = 0
        # an error's offers, shown under it only if the run ends without a message
        self._held: list[tuple[ChatMessage, list[Offer]]] = []
        self._handlers: dict[str, Callable[[Any], None]] = {
            "turn_start": self._on_turn_start,
            "token": self._on_token,
            "message": self._on_message,
            "error": self._on_error,
            "done": self._on_done,
            "tool_start": self._on_tool_start,
            "tool_progress": self._on_tool_progress,
            "tool_retry": self._on_tool_retry,
            "tool_timeout": self._on_tool_timeout,
            "tool_end": self._on_tool_end,
            "confirm_required": self._on_confirm_required,
            "awaiting_approval": self._on_awaiting_approval,
            "permission_denied": self._on_permission_denied,
            "stopped": self._on_stopped,
        }

    async def run(self, events: AsyncIterable[Event]) -> int:
        """Apply a whole stream; returns the number of assistant messages it produced."""
        self._open, self._answers, self._held = None, 0, []
        try:
            async for event in events:
                self.apply(event)
        finally:
            self._close_open()
            self._release_held()
        return self._answers

    def apply(self, event: Event) -> None:
        handler = self._handlers.get(event.type)
        if handler is None:
            log.warning("ignoring unknown agent event type %r", event.type)
            return
        handler(event)

    # ---- text -------------------------------------------------------------------------
    def _on_turn_start(self, ev: events.TurnStartEvent) -> None:
        """The core accepted the turn: say at once which model is answering."""
        self.sink.note_answering_model(ev.model)

    def _close_open(self) -> None:
        """The streamed answer is complete: the next text opens a new bubble."""
        self._open = None

    def _release_held(self, taken: Sequence[Offer] = ()) -> None:
        """The run ended (or its message came): each error keeps the ways on it offered
        that the message does not carry (``taken``), so none is shown twice or lost."""
        said = {(o.kind, o.request) for o in taken}
        for notice, offers in self._held:
            notice.offers = [o for o in offers if (o.kind, o.request) not in said]
        self._held = []

    def _on_token(self, ev: events.TokenEvent) -> None:
        if self._open is None:
            self._open = self.sink.add_message("assistant", "")
            self._answers += 1
        self._open.text += ev.text
        self.sink.set_step("answer")

    def _on_message(self, ev: events.MessageEvent) -> None:
        """The run's answer with the ways on it offers (the errors' offers are among
        them). A ``problem`` (the turn ended on what the model did) is the core's own
        sentence: the answer, muted, never an error."""
        self.sink.note_answering_model(ev.model)
        self._release_held(ev.offers)
        if ev.problem:
            self._close_open()  # text the model streamed before stays as it was
            answer = self.sink.add_message("assistant", ev.text, "problem")
            self._answers += 1
        elif self._open is not None:
            answer = self._open
            answer.text = ev.text or answer.text
        else:
            answer = self.sink.add_message("assistant", ev.text)
            self._answers += 1
        answer.offers = list(ev.offers)
        self._close_open()
        self.sink.set_step("answer")

    def _on_error(self, ev: events.ErrorEvent) -> None:
        """A refused call in the page's words, from its typed refusal (never the server's
        English); a refusal the turn goes on from is a notice. Any other error in the
        page's words, the server's text kept as the detail."""
        self._close_open()
        lang = self.sink.lang
        if ev.refusal is not None:
            text, detail = refusal_notice(ev.refusal, lang)
            notice = is_notice(ev.refusal)
        else:
            text, detail = error_text(ev.code, ev.message, lang, tool=ev.tool_name)
            notice = False
        if notice:
            shown = self.sink.add_message("assistant", text, "notice")
        else:
            shown = self.sink.show_error(text)
            self._answers += 1
        shown.detail = detail
        if ev.offers:
            self._held.append((shown, list(ev.offers)))

    def _on_done(self, ev: events.DoneEvent) -> None:
        self._close_open()
        self._release_held()
        self.sink.turn_done(ev.state)

    # ---- confirmation and permission ------------------------------------------------------
    def _on_confirm_required(self, ev: events.ConfirmRequiredEvent) -> None:
        self._close_open()
        meta = ev.metadata
        if not meta.permission_granted:  # never a confirmation for a forbidden call
            self._deny(meta.tool_name, meta.required_role, meta.alternatives)
            return
        self.sink.show_confirmation(ev)

    def _on_awaiting_approval(self, ev: events.AwaitingApprovalEvent) -> None:
        """A confirmed call waits for a second person: its waiting card stands for it."""
        self._close_open()
        self.sink.show_awaiting_approval(ev)

    def _on_permission_denied(self, ev: events.PermissionDeniedEvent) -> None:
        self._close_open()
        self._deny(ev.tool_name, ev.required_role, ev.alternatives)

    def _on_stopped(self, ev: events.StoppedEvent) -> None:
        self._close_open()
        self.sink.note_stopped(ev.writes_in_flight)

    def _deny(self, tool: str, role: str | None, alternatives: Sequence[Alternative]) -> None:
        alts = tuple({"action": a.action, "prompt": a.prompt} for a in alternatives)
        self.sink.show_permission_denied(PermissionDenial(tool, role or "admin", alts))

    # ---- restore ------------------------------------------------------------------------
    def restore(self, conversation: ConversationLike) -> None:
        """Rebuild the chat from the core's ConversationView (reload, second tab):
        messages, then the tool calls' cards, then a pending confirmation card."""
        sink = self.sink
        sink.reset(conv_id=sink.conv_id)
        self._open, self._held = None, []
        pending = conversation.pending
        waiting = getattr(conversation, "awaiting_approval", None)  # (a newer core's field)
        waits = {c.call_id for c in (pending, waiting) if c is not None}
        for row in in_order(conversation.messages, conversation.tool_calls):
            if "tool_name" not in row:
                role = "user" if row.get("role") == "user" else "assistant"
                text = str(row.get("text") or row.get("content") or "")
                sink.add_message(role, text).offers = restored_offers(row.get("offers"))
            elif (refusal := restored_refusal(row)) is not None:
                # a refused call, as the live turn said it: the page's words, never the
                # server's English
                text, detail = refusal_notice(refusal, sink.lang)
                kind = "notice" if is_notice(refusal) else "error"
                sink.add_message("assistant", text, kind).detail = detail
            elif row.get("call_id") not in waits:
                sink.add_item(restored_call(row))  # (the card that waits stands for it)
                if denied_on_its_card(row):
                    sink.say_cancelled()  # as the live turn said it
        if pending is not None:
            self._on_confirm_required(pending)
        if waiting is not None:
            self._on_awaiting_approval(waiting)
