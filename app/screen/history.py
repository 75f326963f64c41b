"""The conversation drawer's state, a part of
:class:`app.screen.chat_model.AgentChatModel`: the person's conversations (title, page
context, environment, last update, a pending-confirmation badge) and the drawer's actions
— open one, rename, archive — handed to the page controller like every other intent.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from nicegui.binding import BindableProperty


@dataclass(frozen=True)
class ConversationEntry:
    conv_id: str
    title: str
    updated_at: datetime
    env_id: str | None = None
    object_type: str | None = None
    pending: bool = False


class HistoryState:
    conv_id: str
    state: str
    _intents: Any
    drawer_open = BindableProperty()

    def __init__(self) -> None:
        self.conversations: list[ConversationEntry] = []
        self._list_listeners: list[Callable[[], object]] = []
        self.drawer_open = False

    def on_conversations_changed(self, callback: Callable[[], object]) -> None:
        self._list_listeners.append(callback)

    # ---- transitions (the controller) ---------------------------------------------------
    def set_conversations(self, entries: Sequence[ConversationEntry]) -> None:
        self.conversations = list(entries)
        for callback in self._list_listeners:
            callback()

    # ---- actions (the drawer) -----------------------------------------------------------
    async def toggle_drawer(self) -> None:
        self.drawer_open = not self.drawer_open
        if self.drawer_open:
            await self._intents.list_conversations()

    async def open_conversation(self, conv_id: str) -> bool:
        """Show another conversation (not while a turn streams into this one)."""
        if conv_id == self.conv_id or self.state == "streaming":
            return False
        await self._intents.show_conversation(conv_id)
        return True

    async def rename_conversation(self, conv_id: str, title: str) -> bool:
        if not title.strip():
            return False
        await self._intents.update_conversation(conv_id, title=title.strip())
        return True

    async def archive_conversation(self, conv_id: str) -> None:
        await self._intents.update_conversation(conv_id, archived=True)
