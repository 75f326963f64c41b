"""The conversation drawer's intents over the agent core, for one signed-in person: the
list (``core.conversations``), rename and archive (``core.update_conversation``). Mixed
into the /agent page's controller (``app.pages.agent_controls``) and the shell's drawer on
the other pages (``app.pages.shell``); opening a conversation is each one's own.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from app.auth import Principal
from app.errors import SsToolsError
from app.screen.history import ConversationEntry, HistoryState
from app.store.conversations import ConversationChange

if TYPE_CHECKING:
    from app.agent.core import AgentCore, ConversationSummary


class DrawerIntents:
    """Needs ``model`` (the drawer's state), ``principal``, ``_core`` and ``_refused``."""

    model: HistoryState
    principal: Principal
    if TYPE_CHECKING:

        @property
        def _core(self) -> AgentCore: ...
        def _refused(self, exc: SsToolsError) -> None: ...

    async def list_conversations(self) -> None:
        try:
            rows = await self._core.conversations(self.principal)
        except SsToolsError as exc:
            self._refused(exc)
            return
        self.model.set_conversations([conversation_entry(r) for r in rows])

    async def update_conversation(
        self, conv_id: str, *, title: str | None = None, archived: bool | None = None
    ) -> None:
        try:
            change = ConversationChange(title=title, archived=archived)
            await self._core.update_conversation(self.principal, conv_id, change)
        except SsToolsError as exc:
            self._refused(exc)
            return
        await self.list_conversations()


def conversation_entry(summary: ConversationSummary) -> ConversationEntry:
    """The drawer's entry of a conversation: the summary's fields of the same names, and
    its pending confirmation as the entry's badge."""
    names = [f.name for f in dataclasses.fields(ConversationEntry) if f.name != "pending"]
    same = {name: getattr(summary, name) for name in names}
    return ConversationEntry(**same, pending=summary.pending_confirmation)
