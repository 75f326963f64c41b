"""The /agent page controller: one object per page visit, between the agent core and the
screen.

    components ──actions──► AgentChatModel ──Intents──► AgentPageController
                                 ▲                         │ prepare_turn / _resume / _call
                     transitions │                         ▼
              StreamProcessor ◄──typed events── core.run_turn / core.resume / core.run_call

Who writes what:

* the controller checks a turn, a decision or a way on's direct call
  (``agent_ways.WaysForward``) in through the core's ``prepare_*`` and runs it on the core
  (the two steps every door takes: ``app.agent.core.control.admitted``),
  feeds the core's typed events to the StreamProcessor, owns reconnects
  (reload the conversation with backoff, then ``disconnected_permanent``), turns a refused
  request into an error message in the page's language, and hands the model each
  environment's tier (from ``core.environments()``, or the resolver for an id outside it);
* the StreamProcessor is the only code that turns events into screen state;
* the model writes its own fields (``state`` included) in the transitions both call.

It is written against :class:`~app.pages.core_door.CoreDoor` (the core plus its three
``prepare_*`` functions), so tests hand it a fake core that yields typed events.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from app.agent.core import Caller, ResumeInput, TurnInput
from app.agent.core.control import admitted
from app.agent.core.requests import RateLimited
from app.auth import Principal
from app.errors import AuthError, ConfirmationError, ForbiddenError, SsToolsError, UIContextError
from app.i18n import refusal_text
from app.pages.agent_approvals import ApprovalWatch
from app.pages.agent_controls import ControllerControls
from app.pages.agent_ways import WaysForward
from app.pages.core_door import CoreDoor
from app.screen.chat_model import AgentChatModel, Decision
from app.screen.stream import StreamProcessor
from app.screen.uicontext import EnvOption, held_params
from app.vocab import Channel

if TYPE_CHECKING:
    from app.events import Event

log = logging.getLogger("ss_tools.pages")
CHANNEL: Channel = "page"
DROPPED = (ConnectionError, OSError)  # a stream (or the conversation read) that broke off
R = TypeVar("R")


# ---- the controller ----------------------------------------------------------------------
class AgentPageController(ControllerControls, WaysForward, ApprovalWatch):
    """Turns and decisions here; stop, the drawer and the edit form in
    :class:`~app.pages.agent_controls.ControllerControls`; the ways on (the
    core's offers) in :class:`~app.pages.agent_ways.WaysForward`; a call that waits for a
    second person in :class:`~app.pages.agent_approvals.ApprovalWatch`."""

    def __init__(
        self,
        model: AgentChatModel,
        door: CoreDoor,
        *,
        principal: Principal,
        token: str,
        reconnect_delays_s: Sequence[float] = (1.0, 2.0, 4.0),
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        on_warning: Callable[[str], object] | None = None,
    ) -> None:
        self.model, self.door = model, door
        self.principal, self.token = principal, token
        self.reconnect_delays_s = tuple(reconnect_delays_s)
        self._sleep = sleep
        self._on_warning = on_warning
        self.processor = StreamProcessor(model)
        self._tasks: set[asyncio.Task[Any]] = set()
        model.connect(self)

    # ---- opening the page ---------------------------------------------------------------
    def open(self, params: Mapping[str, str | None]) -> None:
        """The environments with their tiers, the deep link's context (and the tier of an
        envId outside the list), and a default environment when the link names none."""
        environments = self._environments()
        self.model.set_environments(environments)
        self.model.mount_context(params)
        self._learn_tier(self.model.context_env_id)
        if self.model.active_env_id is None and (env := self._default_env()):
            self.model.update_active_env(env)

    def _environments(self) -> list[EnvOption]:
        try:
            views = self.door.core.environments()
        except SsToolsError as exc:  # a broken environments file must not take the page down
            self._warn(f"environments unavailable on /agent: {exc}")
            return []
        return [EnvOption(id=v.id, name=v.name or v.id, tier=v.tier, url=v.url) for v in views]

    def _learn_tier(self, env_id: str | None) -> None:
        if env_id and not self.model.knows_env(env_id):
            self.model.learn_env_tier(env_id, self._tier_of(env_id))

    def _tier_of(self, env_id: str) -> str | None:
        """Policy's answer (configured tier > derived from the id > prod); None when the
        environments cannot be read (the screen then shows the prod look)."""
        try:
            return self.door.core.tier(env_id)
        except SsToolsError as exc:
            self._warn(f"environment tiers unavailable: {exc}")
            return None

    def _default_env(self) -> str | None:
        """Policy's default environment (the one a request naming none acts on)."""
        try:
            return self.door.core.default_env()
        except SsToolsError as exc:
            self._warn(f"environments unavailable on /agent: {exc}")
            return None

    def _warn(self, text: str) -> None:
        log.warning("%s", text)
        if self._on_warning is not None:
            self._on_warning(text)

    # ---- intents (the model's actions land here) ------------------------------------------
    async def send(self, text: str) -> None:
        history = self.model.begin_turn(text)
        if history is None:
            return
        turn = TurnInput(
            message=text.strip(),
            history=history,
            conv_id=self.model.conv_id,
            env_id=self.model.active_env_id,
            uicontext=self.model.ui_context,
            lang=self.model.lang,  # the page's language: the turn is said in it
        )
        ran = await self._admitted(self.door.prepare_turn, self.door.core.run_turn, turn)
        if ran is None:  # refused before it started: the text goes back into the composer
            self.model.give_back(text)

    async def decide(
        self, decision: Decision, reason: str | None, args: Mapping[str, Any] | None = None
    ) -> None:
        confirmation_id = self.model.begin_decision(decision)
        if confirmation_id is None:
            return
        answer = ResumeInput(
            conv_id=self.model.conv_id,
            confirmation_id=confirmation_id,
            decision=decision,
            reason=reason,
            args=args,
        )
        answers = await self._admitted(self.door.prepare_resume, self.door.core.resume, answer)
        if answers is not None:
            self.model.end_decision(decision, answered=answers > 0)

    async def _admitted(
        self,
        prepare: Callable[..., Awaitable[R]],
        run: Callable[[R], AsyncIterator[Event]],
        *given: object,
        **fields: Any,
    ) -> int | None:
        """The door's two steps (``admitted``): ``prepare`` (the door's ``prepare_*``) of
        ``given`` (its input) or ``fields`` (``prepare_call``'s) asked by this page's
        person, then ``run`` of the checked request, its events fed to the screen. None
        when either refused before the run began (the refusal shown in the chat), else
        how many answers the stream showed."""
        caller = Caller(token=self.token, principal=self.principal, channel=CHANNEL)
        try:
            events = await admitted(prepare(*given, caller=caller, **fields), run)
        except SsToolsError as exc:
            self._refused(exc)
            return None
        except DROPPED as exc:  # broke off at its first event
            return await self._dropped(exc)
        return await self._stream(events)

    async def _stream(self, events: AsyncIterator[Event]) -> int:
        """Feed a stream to the processor; returns how many answers it showed."""
        try:
            answers = await self.processor.run(events)
        except DROPPED as exc:
            return await self._dropped(exc)
        except SsToolsError as exc:  # refused mid-stream: a message, never a traceback
            self._refused(exc)
            return 1
        self.model.end_stream()
        self.after_stream()
        return answers

    async def _dropped(self, exc: Exception) -> int:
        """A stream that broke off: reload the conversation (with backoff); no answers."""
        log.warning("agent stream of %s dropped: %s", self.model.conv_id, exc)
        self.model.connection_lost()
        await self.reconnect()
        return 0

    def _refused(self, exc: SsToolsError) -> None:
        error, reason = refusal_of(exc)
        log.info("request of %s refused: %s (%s)", self.principal.user_id, error, reason)
        wait = getattr(exc, "retry_after_s", None)  # a user over a limit: when to try again
        text = refusal_text(error, reason, self.model.lang, seconds=wait)
        if isinstance(exc, RateLimited) and self.model.card_state.startswith("loading"):
            self.model.answer_later(text)  # refused before it was spent: the card stays
        else:
            self.model.show_error(text)

    # ---- reconnect and restore -------------------------------------------------------------
    async def reconnect(self) -> bool:
        """Reload the conversation with backoff; give up as disconnected_permanent."""
        for delay in self.reconnect_delays_s:
            await self._sleep(delay)
            try:
                await self.restore()
            except DROPPED as exc:
                log.info("reconnect of %s failed: %s", self.model.conv_id, exc)
                continue
            return True
        self.model.connection_gone()
        return False

    async def restore(self) -> None:
        """Rebuild the chat (messages, tool cards, a pending confirmation) from the core."""
        view = await self.door.core.conversation(self.principal, self.model.conv_id)
        self.processor.restore(view)

    async def resume_visit(self) -> str:
        """A reload or a second tab with a remembered conversation (one visit, one
        context): shown with the context it was held in when the visit's link names none,
        or names that same context; a link that names another context starts a new
        conversation in it (the old one stays in the drawer, with its badge). Returns the
        conversation now shown. A conversation that cannot be read (not the user's any
        more) is left the same way."""
        try:
            view = await self.door.core.conversation(self.principal, self.model.conv_id)
        except SsToolsError as exc:
            log.info("conversation %s not restored: %s", self.model.conv_id, exc)
            return self.new_conversation()
        held = held_params(getattr(view, "turn", None))
        if not self.model.may_show_held(held):
            log.info("conversation %s held in another context: a new one", self.model.conv_id)
            return self.new_conversation()
        if not self.model.link_context:
            self.model.take_held_context(held)
            self._learn_tier(self.model.context_env_id)
        self.processor.restore(view)
        return self.model.conv_id

    async def open_conversation(self) -> str:
        """A link to a conversation (``/agent?conv=``): restore it with the context it was
        held in; a conversation that is not the user's (or not a conversation id) is
        refused with a visible message, and the page goes on with a new conversation.
        Returns the conversation now shown."""
        try:
            view = await self.door.core.conversation(self.principal, self.model.conv_id)
        except SsToolsError as exc:
            self.new_conversation()
            self._refused(exc)
            return self.model.conv_id
        self.model.take_held_context(held_params(getattr(view, "turn", None)))
        self._learn_tier(self.model.context_env_id)
        self.processor.restore(view)
        return self.model.conv_id

    def new_conversation(self) -> str:
        self.model.reset()
        return self.model.conv_id


def refusal_of(exc: SsToolsError) -> tuple[str, str]:
    """(error code, reason) of a refusal. ``RequestRefused`` carries both (``error``,
    ``reason``); the older typed errors map onto the same codes."""
    error = getattr(exc, "error", None)
    if isinstance(error, str) and error:
        return error, str(getattr(exc, "reason", "") or exc)
    if isinstance(exc, ConfirmationError):
        return f"confirmation_{exc.reason}", str(exc)
    if isinstance(exc, ForbiddenError):
        return "forbidden", str(exc)
    if isinstance(exc, AuthError):
        return "unauthorized", str(exc)
    if isinstance(exc, UIContextError):
        return "invalid_uicontext", str(exc)
    return "refused", str(exc)
