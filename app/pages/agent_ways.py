"""The page controller's ways forward (issue 10), mixed into
:class:`app.pages.agent_controller.AgentPageController`:

* **continue without this page's context** — an answer's offer: leave the UIContext (the
  pill says so) and ask with the object spelled out, which leads to the confirmation;
* **Check status** — the card's request (the task by its id) goes out as a turn; where the
  page's context filters ``get_task_status`` out (a dashboard page), without the context.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.policy.catalog import affinity_for
from app.screen.model import BUSY

if TYPE_CHECKING:
    from app.screen.model import AgentChatModel


class WaysForward:
    """Needs the controller's ``model`` and ``send``."""

    model: AgentChatModel

    async def send(self, text: str) -> None: ...

    async def continue_without_context(self, request: str) -> None:
        """Leave the page's context (the pill too) and ask with the object spelled out."""
        if self.model.state not in BUSY:
            self.model.clear_ui_context()
            await self.send(request)

    async def check_status(self, request: str) -> None:
        """Ask get_task_status, leaving a page context that filters it out (dashboard)."""
        object_type = (self.model.ui_context or {}).get("objectType")
        keeps = not object_type or object_type in affinity_for("get_task_status")
        await (self.send(request) if keeps else self.continue_without_context(request))
