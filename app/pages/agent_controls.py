"""The page controller's part for the operator's controls, mixed into
:class:`app.pages.agent_controller.AgentPageController`:

* **Stop** — ``core.cancel`` (the turn's own stream then says ``stopped``); a write the
  stop did not kill is *followed*: its outcome (``core.follow``) updates its card when it
  ends, in the background, while the person goes on;
* **the drawer** — the person's conversations (``core.conversations``), opening one
  (messages, tool cards with results, a pending card, and its page context), rename and
  archive (``core.update_conversation``);
* **the edit form** — the tool's args schema and the args model's own messages.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from app.auth import Principal
from app.errors import SsToolsError
from app.events import ToolEndEvent
from app.pages.drawer_intents import DrawerIntents
from app.screen.uicontext import held_params
from app.vocab import Channel

if TYPE_CHECKING:
    from app.agent.core import AgentCore
    from app.screen.chat_model import AgentChatModel
    from app.screen.stream import StreamProcessor

log = logging.getLogger("ss_tools.pages")
CHANNEL: Channel = "page"


class ControllerControls(DrawerIntents):
    """Needs the controller's ``model``, ``door``, ``principal``, ``processor`` and
    ``_refused``."""

    model: AgentChatModel
    principal: Principal
    processor: StreamProcessor
    door: Any  # CoreDoor (app.pages.core_door), whose core is the agent core
    _tasks: set[asyncio.Task[Any]]  # background work of this page (following writes …)

    def _refused(self, exc: SsToolsError) -> None: ...
    def _learn_tier(self, env_id: str | None) -> None: ...

    @property
    def _core(self) -> AgentCore:
        core: AgentCore = self.door.core
        return core

    # ---- stop ---------------------------------------------------------------------------
    async def stop(self) -> None:
        try:
            report = await self._core.cancel(self.principal, self.model.conv_id, channel=CHANNEL)
        except SsToolsError as exc:
            self._refused(exc)
            return
        self.model.stop_answered(report.status)

    def after_stream(self) -> None:
        """A stream ended: follow the writes a stop left running; refresh the drawer."""
        if self.model.writes_going_on:
            self._background(self._follow(self.model.conv_id))
        if self.model.drawer_open:
            self._background(self.list_conversations())

    def _background(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _follow(self, conv_id: str) -> None:
        """The outcome of each write a stop left running, onto its card: live from the
        run, or — when the run ended before the page listened — from the conversation."""
        waiting = set(self.model.writes_going_on)
        try:
            async for event in self._core.follow(self.principal, conv_id):
                if self.model.conv_id == conv_id:  # still the conversation on screen
                    self.processor.apply(event)
            if self.model.conv_id == conv_id:
                await self._settle_from_view(conv_id, waiting)
        except SsToolsError as exc:  # the outcome is in the conversation all the same
            log.warning("following the writes of %s stopped: %s", conv_id, exc)
        finally:
            if self.model.conv_id == conv_id:
                self.model.writes_landed()

    async def _settle_from_view(self, conv_id: str, call_ids: set[str]) -> None:
        open_cards = [c for i in call_ids if (c := self.model.tool_call(i)) and c.goes_on]
        if not open_cards:
            return
        view = await self._core.conversation(self.principal, conv_id)
        rows = {row.get("call_id"): row for row in view.tool_calls}
        for call in open_cards:  # the processor turns the recorded outcome into the card
            row = rows.get(call.call_id) or {}
            if row.get("status") in ("completed", "failed", "cancelled"):
                self.processor.apply(
                    ToolEndEvent(
                        conv_id=conv_id,
                        call_id=call.call_id,
                        tool_name=call.tool_name,
                        status=row["status"],
                        result=str(row.get("result") or ""),
                        error=str(row.get("error") or "") or None,
                    )
                )

    # ---- the drawer (its list, rename and archive: DrawerIntents) -----------------------
    async def show_conversation(self, conv_id: str) -> None:
        """Show ``conv_id``: its messages, tool cards with results, a pending card, and the
        page context it was asked under."""
        try:
            view = await self._core.conversation(self.principal, conv_id)
        except SsToolsError as exc:
            self._refused(exc)
            return
        self.model.reset(conv_id=conv_id)
        self.model.take_held_context(held_params(getattr(view, "turn", None)))
        self._learn_tier(self.model.context_env_id)
        self.processor.restore(view)
        await self.list_conversations()

    # ---- the edit form ----------------------------------------------------------------------
    def args_schema(self, tool_name: str, lang: str = "en") -> dict[str, Any]:
        return self._core.args_schema(tool_name, lang)

    def validate_args(
        self, tool_name: str, args: Mapping[str, Any], lang: str = "en"
    ) -> dict[str, str]:
        return self._core.validate_args(tool_name, args, lang)
