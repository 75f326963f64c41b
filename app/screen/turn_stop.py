"""Stopping a turn, as screen state: a part of :class:`app.screen.chat_model.AgentChatModel`.

Stop cancels the reads in flight; a write in flight is never killed mid-call, so its card
says it goes on (``writes_going_on``) until the writes have landed. A stop the core
accepted but could not yet confirm (the turn runs on a busy replica) says so at the
composer until the turn's stream says it stopped; the button says "Stopping…" meanwhile.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from nicegui.binding import BindableProperty

from app.i18n import t

if TYPE_CHECKING:
    from app.screen.items import ChatMessage, ToolCall


class StopState:
    lang: str
    state: str
    composer_hint: str
    _intents: Any
    if TYPE_CHECKING:  # ChatItems'

        def add_message(self, role: str, text: str, kind: str = "text") -> ChatMessage: ...
        def tool_call(self, call_id: str) -> ToolCall | None: ...

    stopping = BindableProperty()

    def __init__(self) -> None:
        self.stopping = False
        self.writes_going_on: set[str] = set()  # stopped turn's writes still running

    async def stop(self) -> bool:
        """Stop the running turn (reads are cancelled; a write goes on)."""
        if self.state != "streaming" or self.stopping:
            return False
        self.stopping = True
        await self._intents.stop()
        return True

    def stop_answered(self, status: str) -> None:
        """The core's answer to Stop (``StopReport.status``): ``stopping`` is a stop
        accepted but not yet confirmed."""
        if status == "stopping":
            self.composer_hint = t("stop_accepted", self.lang)

    def stop_over(self) -> None:
        """The turn ended or said it stopped: the button and the composer's note are done."""
        self.stopping = False
        if self.composer_hint == t("stop_accepted", self.lang):
            self.composer_hint = ""

    def note_stopped(self, writes_in_flight: Sequence[str]) -> None:
        """The turn was stopped: each write still running says it goes on."""
        self.stop_over()
        self.writes_going_on = set(writes_in_flight)
        for call_id in writes_in_flight:
            if (call := self.tool_call(call_id)) is not None:
                call.goes_on = True
        key = "stopped_writes_go_on" if writes_in_flight else "stopped"
        self.add_message("assistant", t(key, self.lang), "notice")

    def writes_landed(self) -> None:
        self.writes_going_on = set()
