"""How a harness's requests reach its core (``Doors``, mixed into ``Harness`` of
tests/agent/harness.py, which builds the core): a caller's token and door, then

* ``turn(...)`` / ``answer(...)`` / ``call(...)`` — the page's path: ``prepare_turn`` /
  ``prepare_resume`` / ``prepare_call`` and the core, collecting the TYPED events it yields;
* ``run(...)`` / ``resume(...)`` — the contract's SSE functions (``agent_handler`` /
  ``resume_handler``) with this core, collecting decoded event dicts.

Their keywords are the fields of ``Turn`` and ``Answer`` (who asks, through which door, in
which conversation).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from app.agent.core import (
    AgentCore,
    ResumeInput,
    ResumeRequest,
    TurnInput,
    TurnRequest,
    prepare_call,
    prepare_resume,
    prepare_turn,
)
from app.agent.core import Caller as DoorCaller
from app.agent.handler import agent_handler, resume_handler
from app.events import BaseEvent, decode_sse
from app.parts import Parts
from app.vocab import Channel
from tests.support import token_for


async def _collect(gen: Any) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    async for frame in gen:
        events += decode_sse(frame)
    return events


@dataclass(frozen=True)
class Caller:
    """Who sends a request to the harness's core, through which door, in which
    conversation (default: a turn starts a new one; an answer goes to the harness's)."""

    user: str = "alice"
    role: str = "admin"
    conv_id: str | None = None
    channel: Channel = "page"
    client: str | None = None


@dataclass(frozen=True)
class Turn(Caller):
    """A turn's keywords (``turn``, ``turn_request``, ``run``)."""

    env_id: str | None = "dev"
    uicontext: Any = None
    history: list[dict[str, Any]] | None = None


@dataclass(frozen=True)
class Answer(Caller):
    """An answer's keywords (``answer``, ``resume_request``, ``resume``)."""

    reason: str | None = None
    args: dict[str, Any] | None = None


class Doors:
    """The requests of a harness: ``parts``, ``core`` and ``conv_id`` are the harness's
    (``Harness.use`` builds the core; a turn picks the conversation)."""

    parts: Parts
    core: AgentCore | None
    conv_id: str

    def token(self, user: str = "alice", role: str = "admin") -> str:
        """A token for ``user`` (the account is made active with ``role`` first)."""
        return token_for(self.parts, user, role)

    def _token(self, options: Caller) -> str:
        """The caller's token; a turn also picks the harness's conversation."""
        assert self.core is not None, "use() builds the core first"
        if isinstance(options, Turn):
            self.conv_id = options.conv_id or uuid.uuid4().hex
        return self.token(options.user, options.role)

    def _door(self, options: Caller) -> dict[str, Any]:
        """The ``prepare_*`` keywords of the caller: the core and the door's caller (its
        token, channel and client)."""
        token = self._token(options)
        caller = DoorCaller(token=token, channel=options.channel, client=options.client)
        return dict(core=self.core, caller=caller)

    # ---- the page's path: typed events ------------------------------------------------
    async def turn_request(self, message: str, **options: Any) -> TurnRequest:
        """``prepare_turn`` for ``message`` on this core (``options``: ``Turn``'s fields)."""
        o = Turn(**options)
        door = self._door(o)
        turn = TurnInput(
            message=message,
            history=o.history,
            conv_id=self.conv_id,
            env_id=o.env_id,
            uicontext=o.uicontext,
        )
        return await prepare_turn(turn, **door)

    async def turn(self, message: str, **options: Any) -> list[BaseEvent]:
        """A turn on the page's path (``options``: ``Turn``'s fields): the typed events
        the core yields."""
        req = await self.turn_request(message, **options)
        return [ev async for ev in self.core.run_turn(req)]  # type: ignore[union-attr]

    async def call(
        self, tool_name: str, args: dict[str, Any], uicontext: Any = None, **options: Any
    ) -> list[BaseEvent]:
        """A door's direct call of ``tool_name`` in the harness's conversation (as the page
        takes an offer's call): the typed events of ``core.run_call``."""
        o = Answer(**options)
        req = await prepare_call(
            **self._door(o),
            tool_name=tool_name,
            arguments=args,
            conv_id=o.conv_id or self.conv_id,
            uicontext=uicontext,
        )
        return [ev async for ev in self.core.run_call(req)]  # type: ignore[union-attr]

    async def resume_request(
        self, confirmation_id: str, decision: str = "confirm", **options: Any
    ) -> ResumeRequest:
        """``prepare_resume`` of ``confirmation_id`` (``options``: ``Answer``'s fields)."""
        o = Answer(**options)
        answer = ResumeInput(
            conv_id=o.conv_id or self.conv_id,
            confirmation_id=confirmation_id,
            decision=decision,
            reason=o.reason,
            args=o.args,
        )
        return await prepare_resume(answer, **self._door(o))

    async def answer(
        self, confirmation_id: str, decision: str = "confirm", **options: Any
    ) -> list[BaseEvent]:
        """An answer to a card on the page's path (``options``: ``Answer``'s fields): the
        typed events the core yields."""
        req = await self.resume_request(confirmation_id, decision, **options)
        return [ev async for ev in self.core.resume(req)]  # type: ignore[union-attr]

    # ---- the contract's SSE functions (no client, no edited args) ---------------------
    async def run(self, message: str, **options: Any) -> list[dict[str, Any]]:
        o = Turn(**options)
        token = self._token(o)
        assert o.client is None, "the SSE functions name no client"
        frames = agent_handler(
            message,
            o.history,
            self.conv_id,
            o.user,
            token,
            o.env_id,
            o.uicontext,
            core=self.core,  # type: ignore[arg-type]
            channel=o.channel,
        )
        return await _collect(frames)

    async def resume(
        self, confirmation_id: str, decision: str = "confirm", **options: Any
    ) -> list[dict[str, Any]]:
        o = Answer(**options)
        token = self._token(o)
        assert o.client is None and o.args is None, "the SSE functions take no client or args"
        frames = resume_handler(
            o.conv_id or self.conv_id,
            token,
            decision,
            o.reason,
            confirmation_id=confirmation_id,
            core=self.core,  # type: ignore[arg-type]
            channel=o.channel,
        )
        return await _collect(frames)
