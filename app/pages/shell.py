"""The app's shell on a page other than /agent (the audit log): the same header and the
same conversation drawer. Opening a conversation there goes to ``/agent?conv=<id>``;
rename and archive work as on /agent.

:class:`ShellConversations` is the drawer's state (the screen's ``HistoryState`` without a
chat); :class:`ShellDrawer` its controller over the agent core, for one signed-in person.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlencode

from app.auth import Principal
from app.errors import SsToolsError
from app.pages.agent_controls import conversation_entry
from app.screen.history import HistoryState
from app.store.conversations import ConversationChange

if TYPE_CHECKING:
    from app.agent.core import AgentCore

log = logging.getLogger("ss_tools.pages")


def conversation_link(conv_id: str) -> str:
    """The /agent link that opens one of the person's conversations."""
    return "/agent?" + urlencode({"conv": conv_id})


class ShellConversations(HistoryState):
    """The drawer's list on a page without a chat: no conversation is on screen."""

    def __init__(self, lang: str) -> None:
        self.lang = lang
        self.conv_id = ""  # none is open here
        self.state = "idle"
        HistoryState.__init__(self)

    def on_reset(self, callback: Callable[[], object]) -> None:
        """Nothing is reset on this page (the drawer's highlight never moves)."""


class ShellDrawer:
    """The drawer's intents for ``principal``: list, open (a link to /agent), rename,
    archive. A refusal is shown through ``on_error`` (the page's notification)."""

    def __init__(
        self,
        model: ShellConversations,
        core: AgentCore,
        principal: Principal,
        *,
        navigate: Callable[[str], object],
        on_error: Callable[[str], object],
    ) -> None:
        self.model = model
        self.core = core
        self.principal = principal
        self.navigate = navigate
        self.on_error = on_error
        model._intents = self

    def _refused(self, exc: SsToolsError) -> None:
        log.info("drawer request of %s refused: %s", self.principal.user_id, exc)
        self.on_error(str(exc))

    async def list_conversations(self) -> None:
        try:
            rows = await self.core.conversations(self.principal)
        except SsToolsError as exc:
            self._refused(exc)
            return
        self.model.set_conversations([conversation_entry(r) for r in rows])

    async def show_conversation(self, conv_id: str) -> None:
        self.navigate(conversation_link(conv_id))

    async def update_conversation(
        self, conv_id: str, *, title: str | None = None, archived: bool | None = None
    ) -> None:
        try:
            change = ConversationChange(title=title, archived=archived)
            await self.core.update_conversation(self.principal, conv_id, change)
        except SsToolsError as exc:
            self._refused(exc)
            return
        await self.list_conversations()
