"""Test doubles for the /agent page: a fake agent core yielding typed events, its door
(the two ``prepare_*``), and a fake clock.

``FakeCore`` has the API of ``app.agent.core.AgentCore`` that the page uses: ``run_turn``,
``resume`` and ``run_call`` (a way on's direct call) yield event objects of
``app.events``; ``conversation`` returns a ConversationView-like value; ``environments``
rows carry their resolved tier and ``env_table`` is the real resolver's table
(``app.policy.risk``). The events they yield are made in ``made_events.py`` beside it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from app.agent.core import ResumeInput, StopReport, TurnInput
from app.agent.core.edits import args_messages, args_schema
from app.agent.rules import default_policy
from app.auth import Principal
from app.errors import SsToolsError
from app.events import ConfirmRequiredEvent, Event
from app.pages.core_door import CoreDoor
from app.policy.risk import EnvTable, tier
from app.store.conversations import ConversationChange

Script = list[Event] | Callable[[str], list[Event]]


class FakeClock:
    def __init__(self, start: float = 1000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class Refused(SsToolsError):
    """Stands in for ``app.agent.core.RequestRefused`` (status, error, reason)."""

    def __init__(self, status: int, error: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.error, self.reason = status, error, reason


@dataclass(frozen=True)
class FakeEnv:
    id: str
    name: str
    tier: str | None
    url: str = ""
    error: str | None = None


@dataclass
class FakeConversation:
    conv_id: str = ""
    messages: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    pending: ConfirmRequiredEvent | None = None
    turn: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class FakeSummary:
    conv_id: str
    title: str
    updated_at: datetime = field(default_factory=lambda: datetime(2026, 11, 30, 9, 15, tzinfo=UTC))
    env_id: str | None = None
    object_type: str | None = None
    pending_confirmation: bool = False
    archived: bool = False


ENVS = [
    FakeEnv("dev", "Development", "dev", "http://dev"),
    FakeEnv("staging", "Staging", "staging", "http://staging"),
    FakeEnv("prod", "Production", "prod", "http://prod"),
]


class FakeCore:
    """Yields prepared typed events; records every prepared request for assertions.

    ``sent`` holds the input's fields and the keyword arguments of each ``prepare_turn``
    call, ``decisions`` those of each ``prepare_resume`` call, ``calls`` those of each
    ``prepare_call`` (``on_call``: what its ``run_call`` yields); set ``refuse`` to an
    exception to have the next ``prepare_*`` raise it (the core's RequestRefused),
    ``fail_stream`` to break a stream.
    """

    model_label = "fake model"

    def __init__(
        self,
        replies: Script | None = None,
        *,
        on_confirm: list[Event] | None = None,
        on_deny: list[Event] | None = None,
        conversation: FakeConversation | None = None,
        environments: Sequence[FakeEnv] = (),
        configured_tiers: dict[str, str | None] | None = None,
        fail_stream: BaseException | None = None,
    ) -> None:
        self.replies: Script = replies if replies is not None else []
        self.on_confirm = on_confirm or []
        self.on_deny = on_deny or []
        self.conv = conversation or FakeConversation()
        self.envs = list(environments)
        self.configured_tiers = configured_tiers
        self.fail_stream = fail_stream
        self.refuse: BaseException | None = None
        self.sent: list[dict[str, Any]] = []
        self.decisions: list[dict[str, Any]] = []
        self.calls: list[dict[str, Any]] = []
        self.on_call: Script = []
        self.conversation_reads = 0
        # Stop: a turn that holds until stopped, what a stop yields and what follows
        self.hold: asyncio.Event | None = None
        self.on_stop: list[Event] = []
        self.followed: list[Event] = []
        self.release_follow = asyncio.Event()
        self.stops: list[str] = []
        self.stop_accepted: asyncio.Event | None = None  # set: the busy replica stops it
        self._tasks: set[asyncio.Task[Any]] = set()
        self.summaries: list[FakeSummary] = []
        self.updates: list[dict[str, Any]] = []
        self.conversations_by_id: dict[str, FakeConversation] = {}

    # ---- the door's prepare_* --------------------------------------------------------------
    async def prepare_turn(self, turn: TurnInput, **kwargs: Any) -> dict[str, Any]:
        self._maybe_refuse()
        self.sent.append({**vars(turn), **kwargs})
        return self.sent[-1]

    async def prepare_resume(self, answer: ResumeInput, **kwargs: Any) -> dict[str, Any]:
        self._maybe_refuse()
        self.decisions.append({**vars(answer), **kwargs})
        return self.decisions[-1]

    async def prepare_call(self, **kwargs: Any) -> dict[str, Any]:
        self._maybe_refuse()
        self.calls.append(dict(kwargs))
        return self.calls[-1]

    def _maybe_refuse(self) -> None:
        if self.refuse is not None:
            refusal, self.refuse = self.refuse, None
            raise refusal

    def door(self) -> CoreDoor:
        return CoreDoor(
            core=self,
            prepare_turn=self.prepare_turn,
            prepare_resume=self.prepare_resume,
            prepare_call=self.prepare_call,
        )

    # ---- the core ----------------------------------------------------------------------------
    async def run_turn(self, req: dict[str, Any]) -> AsyncIterator[Event]:
        if self.fail_stream is not None:
            raise self.fail_stream
        script = self.replies(req["message"]) if callable(self.replies) else self.replies
        for event in script:
            yield event
        if self.hold is not None:  # a turn still running until someone stops it
            await self.hold.wait()
            for event in self.on_stop:
                yield event

    async def run_call(self, req: dict[str, Any]) -> AsyncIterator[Event]:
        script = self.on_call(req["tool_name"]) if callable(self.on_call) else self.on_call
        for event in script:
            yield event

    async def resume(self, req: dict[str, Any]) -> AsyncIterator[Event]:
        for event in self.on_confirm if req["decision"] == "confirm" else self.on_deny:
            yield event

    async def conversation(self, principal: Principal, conv_id: str) -> FakeConversation:
        self.conversation_reads += 1
        return self.conversations_by_id.get(conv_id, self.conv)

    async def cancel(self, principal: Principal, conv_id: str, *, channel: str) -> StopReport:
        """A stop: confirmed at once (the turn's held events then go on), or, with
        ``stop_accepted`` set, accepted only: the turn goes on when the test sets it."""
        self.stops.append(conv_id)
        if self.stop_accepted is not None:
            self._background(self._stop_when(self.stop_accepted))
            return StopReport(conv_id, stopped=True, status="stopping")
        if self.hold is not None:
            self.hold.set()
        return StopReport(conv_id, stopped=True, confirmed=True, status="stopped")

    async def _stop_when(self, accepted: asyncio.Event) -> None:
        await accepted.wait()
        if self.hold is not None:
            self.hold.set()

    def _background(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def follow(self, principal: Principal, conv_id: str) -> AsyncIterator[Event]:
        await self.release_follow.wait()
        for event in self.followed:
            yield event

    async def conversations(
        self, principal: Principal, *, archived: bool = False
    ) -> list[FakeSummary]:
        return [s for s in self.summaries if not s.archived]

    async def update_conversation(
        self, principal: Principal, conv_id: str, change: ConversationChange
    ) -> FakeSummary:
        """``change``: the core's ``title`` / ``archived`` (None: unchanged)."""
        self.updates.append({"conv_id": conv_id, **asdict(change)})
        i, row = next((i, s) for i, s in enumerate(self.summaries) if s.conv_id == conv_id)
        changed = replace(row, **change.given())
        self.summaries[i] = changed
        return changed

    def args_schema(self, tool_name: str, lang: str = "en") -> dict[str, Any]:
        return args_schema(default_policy(), tool_name, lang)  # the real tools' args models

    def validate_args(self, tool_name: str, args: Any, lang: str = "en") -> dict[str, str]:
        return args_messages(default_policy(), tool_name, args, lang)

    def environments(self) -> list[FakeEnv]:
        return list(self.envs)

    def env_table(self) -> EnvTable:
        tiers = self.configured_tiers
        if tiers is None:
            tiers = {env.id: env.tier for env in self.envs}  # type: ignore[misc]
        return EnvTable.configured(tiers)  # type: ignore[arg-type]

    def tier(self, env_id: str) -> str:
        """Policy's rule, as the real core answers it (``AgentCore.tier``)."""
        return tier(env_id, self.env_table())

    def default_env(self) -> str | None:
        """Policy's default environment, as the real core answers it."""
        return self.env_table().default
