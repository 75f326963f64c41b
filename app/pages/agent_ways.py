"""The page controller's ways on (the core's typed offers, ``app.events.Offer``), mixed
into :class:`app.pages.agent_controller.AgentPageController`:

* an offer that says ``clear_context`` leaves the page's context first (the pill says so);
  the core decided that, the page does not;
* an offer with a ``call`` is made as a direct call through the core (``prepare_call`` +
  ``core.run_call``: the same guard, confirmation and audit as a turn), in this
  conversation, its events fed to the StreamProcessor like a turn's: "Continue without
  this page's context" leads to the confirmation, "Check status" to the task's status;
* an offer without a call (a choice) sends its ``request`` as the person's message;
* ``link_account`` opens the page's "Connect your Superset account" form
  (``on_link_account``); the form's username and password go to :meth:`link_account`
  (one sign-in through ``app.agent.link_attempt``, the attempt every door makes), never
  into the conversation.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from app.agent.link_attempt import link_attempt
from app.i18n import t
from app.screen.chat_model import BUSY

if TYPE_CHECKING:
    from app.auth import Principal
    from app.events import Event, Offer, OfferedCall
    from app.pages.core_door import CoreDoor
    from app.screen.chat_model import AgentChatModel

R = TypeVar("R")


class WaysForward:
    """Needs the controller's ``model``, ``door``, ``send`` and ``_admitted``."""

    model: AgentChatModel
    door: CoreDoor
    principal: Principal
    #: opens the page's link form for an environment (set by the page)
    on_link_account: Callable[[str], object] | None = None
    #: the page's client address (sign-in attempts are counted per client too)
    client_host: str | None = None

    if TYPE_CHECKING:  # the controller's own

        async def send(self, text: str) -> None: ...

        async def _admitted(
            self,
            prepare: Callable[..., Awaitable[R]],
            run: Callable[[R], AsyncIterator[Event]],
            *given: object,
            **fields: Any,
        ) -> int | None: ...

    async def take_offer(self, offer: Offer) -> None:
        if self.model.state in BUSY:
            return
        if offer.kind == "link_account":  # a form, never a message: a password is asked
            if self.on_link_account is not None and offer.env_id:
                self.on_link_account(offer.env_id)
            return
        if offer.clear_context:
            self.model.clear_ui_context()
        if offer.call is None:
            await self.send(offer.request)
        else:
            await self.make_call(offer.call, offer.request)

    async def link_account(self, env_id: str, username: str, password: str) -> tuple[bool, str]:
        """Link the person's Superset account on ``env_id``: (connected, the sentence to
        show, in the page's language)."""
        core = self.door.core
        outcome = await link_attempt(
            core.auth, core.registry, user_id=self.principal.user_id, env_id=env_id,
            username=username, password=password, client=self.client_host,
        )  # fmt: skip
        lang = self.model.lang
        if outcome.ok:
            return True, t("link_done", lang, username=outcome.link["username"], env=env_id)
        if outcome.status == 429:
            return False, t("link_throttled", lang, seconds=outcome.retry_after_s)
        return False, t("link_failed", lang, reason=outcome.reason)

    async def make_call(self, call: OfferedCall, request: str) -> None:
        """``call`` made directly in this conversation under the page's context (as it is
        now); ``request`` (the offer's words) is shown as what the person asked."""
        if not self.model.begin_call(request):
            return
        await self._admitted(
            self.door.prepare_call,
            self.door.core.run_call,
            tool_name=call.tool_name,
            arguments=call.args,
            conv_id=self.model.conv_id,
            uicontext=self.model.ui_context,
            lang=self.model.lang,
        )
