"""The page controller's part for a call that waits for a second person (four-eyes),
mixed into :class:`app.pages.agent_controller.AgentPageController`:

* **Withdraw** — the requester withdraws the waiting request (``app.agent.core.approvals``:
  as a stop of the conversation; nothing runs), and the chat shows the cancelled call;
* **the result arrives live** — while the waiting card is shown, :meth:`poll_approval`
  (a page timer, every ``approval_poll_s``) reads the request; once a second person has
  decided it and its run has ended (on this replica or another: the request's row and
  the conversation's checkpoint are shared), the chat is rebuilt from the conversation:
  the call's result or the denial with its reason, and the sentence after it.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from app.agent.core import Caller
from app.agent.core import approvals as queue
from app.auth import Principal
from app.errors import SsToolsError
from app.vocab import Channel

if TYPE_CHECKING:
    from app.screen.chat_model import AgentChatModel

log = logging.getLogger("ss_tools.pages")
CHANNEL: Channel = "page"
#: a request's states after which the chat is rebuilt (an approved one once it has run)
SETTLED = ("denied", "withdrawn", "expired")


class ApprovalWatch:
    """Needs the controller's ``model``, ``door``, ``principal``, ``_refused`` and
    ``restore``."""

    model: AgentChatModel
    principal: Principal
    door: Any  # CoreDoor (app.pages.core_door)

    def _refused(self, exc: SsToolsError) -> None: ...
    async def restore(self) -> None: ...

    def _caller(self) -> Caller:
        return Caller(principal=self.principal, channel=CHANNEL)

    async def withdraw_approval(self, approval_id: str) -> None:
        try:
            await queue.withdraw(self.door.core, self._caller(), approval_id)
        except SsToolsError as exc:
            self.model.approval_withdrawing = False
            self._refused(exc)
            return
        await self.restore()

    async def poll_approval(self) -> None:
        """Rebuild the chat once the waiting request has been decided and its run has
        ended; nothing while the page runs a turn of its own."""
        waiting = self.model.awaiting_approval
        if waiting is None or waiting.status in SETTLED or self.model.state == "streaming":
            return
        try:
            request = await queue.approval_status(
                self.door.core, self._caller(), waiting.approval_id
            )
        except SsToolsError as exc:  # the request is gone (or not ours): said once, then quiet
            log.info("approval %s not readable: %s", waiting.approval_id, exc)
            self.model.clear_awaiting_approval()
            return
        if request["status"] == "pending" or (
            request["outcome"] is None and request["status"] == "approved"
        ):
            return
        if self.model.approval_id == waiting.approval_id:  # still the card on screen
            await self.restore()
