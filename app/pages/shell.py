"""The app's shell on a page other than /agent (the audit log, the approvals): the same
header and the same conversation drawer. Opening a conversation there goes to
``/agent?conv=<id>``; rename and archive work as on /agent.

The header for the signed-in person is :func:`signed_in_header` (its approvals count,
sign-out); :class:`ShellConversations` is the drawer's state (the screen's
``HistoryState`` without a chat); :class:`ShellDrawer` its controller over the agent core,
for one signed-in person.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

from nicegui import ui

from app.auth import Principal
from app.errors import SsToolsError
from app.pages import session
from app.pages.approvals_count import approvals_counter
from app.pages.drawer_intents import DrawerIntents
from app.screen.approvals_queue import ApprovalsCount
from app.screen.history import HistoryState
from components.header import shell_header

if TYPE_CHECKING:
    from app.agent.core import AgentCore
    from app.parts import Parts

log = logging.getLogger("ss_tools.pages")


async def signed_in_header(
    parts: Parts,
    user: session.SessionUser,
    language: str,
    title: str,
    on_language: Callable[[str], object],
    **drawer: Any,
) -> ApprovalsCount:
    """The shell's header for the signed-in ``user``: ``title``, the language switch
    (``on_language``), the approvals link with its count (returned, to keep it counting),
    sign-out (the session ends, then /login); ``drawer``: its buttons' callbacks."""
    counter = await approvals_counter(parts.core, user.principal)

    def sign_out() -> None:
        session.sign_out(parts.auth)
        ui.navigate.to("/login")

    shell_header(
        lang=language,
        username=user.username,
        role=user.role,
        title=title,
        on_language=on_language,
        on_sign_out=sign_out,
        approvals=counter,
        **drawer,
    )
    return counter


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


class ShellDrawer(DrawerIntents):
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
        self.model, self.principal = model, principal
        self._shell_core = core
        self.navigate, self.on_error = navigate, on_error
        model._intents = self

    @property
    def _core(self) -> AgentCore:
        return self._shell_core

    def _refused(self, exc: SsToolsError) -> None:
        log.info("drawer request of %s refused: %s", self.principal.user_id, exc)
        self.on_error(str(exc))

    async def show_conversation(self, conv_id: str) -> None:
        self.navigate(conversation_link(conv_id))
