"""INTERIM ADAPTER — DELETE AT MERGE with the core branch (see ``agent.core_door``).

Today's SSE handler behind the API of ``app.agent.core`` (``run_turn``, ``resume``,
``conversation``, ``environments``, ``env_table`` and the two ``prepare_*``), so the page
controller is written against the core's API before the core exists on this branch. This
module is the only place on the page's path that still sees SSE text: it parses the
handler's frames back into typed events with ``parse_event``. The core branch removes the
round trip; nothing else imports this module.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.agent.events import ConfirmRequiredEvent, Event, decode_sse, parse_event
from app.agent.handler import agent_handler, get_conversation, resume_handler
from app.auth import Principal
from app.pages.agent_controller import CoreDoor
from app.policy.envs import EnvTable
from app.superset.registry import get_registry


@dataclass(frozen=True)
class LegacyTurn:
    """What ``prepare_turn`` will check; here it is passed on to the handler, which checks."""

    token: str
    principal: Principal | None
    message: str
    history: list[dict[str, Any]]
    conv_id: str
    env_id: str | None
    uicontext: dict[str, Any] | None


@dataclass(frozen=True)
class LegacyResume:
    token: str
    conv_id: str
    confirmation_id: str
    decision: str
    reason: str | None


@dataclass(frozen=True)
class LegacyEnv:
    id: str
    name: str
    tier: str | None
    url: str = ""
    error: str | None = None


@dataclass(frozen=True)
class LegacyConversation:
    conv_id: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    pending: ConfirmRequiredEvent | None = None
    turn: dict[str, Any] = field(default_factory=dict)


async def prepare_turn(
    *,
    token: str | None = None,
    principal: Principal | None = None,
    message: str,
    history: Sequence[Mapping[str, Any]] | None,
    conv_id: str | None,
    env_id: str | None,
    uicontext: str | Mapping[str, Any] | None,
    channel: str,
) -> LegacyTurn:
    return LegacyTurn(
        token=token or "",
        principal=principal,
        message=message,
        history=[dict(h) for h in history or ()],
        conv_id=conv_id or "",
        env_id=env_id,
        uicontext=dict(uicontext) if isinstance(uicontext, Mapping) else None,
    )


async def prepare_resume(
    *,
    token: str | None = None,
    principal: Principal | None = None,
    conv_id: str,
    confirmation_id: str,
    decision: str,
    reason: str | None = None,
    channel: str,
) -> LegacyResume:
    return LegacyResume(token or "", conv_id, confirmation_id, decision, reason)


async def _typed(frames: AsyncIterator[str]) -> AsyncIterator[Event]:
    async for frame in frames:
        for data in decode_sse(frame):
            yield parse_event(data)


class LegacyCore:
    """The handler of today, per page visit (its conversation read needs the token)."""

    def __init__(self, token: str) -> None:
        self.token = token

    async def run_turn(self, req: LegacyTurn) -> AsyncIterator[Event]:
        user_id = req.principal.user_id if req.principal is not None else None
        frames = agent_handler(
            req.message, req.history, req.conv_id, user_id, req.token, req.env_id, req.uicontext
        )
        async for event in _typed(frames):
            yield event

    async def resume(self, req: LegacyResume) -> AsyncIterator[Event]:
        frames = resume_handler(
            req.conv_id, req.token, req.confirmation_id, req.decision, req.reason
        )
        async for event in _typed(frames):
            yield event

    async def conversation(self, principal: Principal, conv_id: str) -> LegacyConversation:
        raw = await get_conversation(conv_id, self.token)
        pending = raw.get("pending_confirmation")
        event = parse_event(pending) if pending else None
        return LegacyConversation(
            conv_id=conv_id,
            messages=list(raw.get("messages") or []),
            tool_calls=list(raw.get("tool_calls") or []),
            pending=event if isinstance(event, ConfirmRequiredEvent) else None,
            turn=dict(raw.get("turn") or {}),
        )

    def environments(self) -> list[LegacyEnv]:
        return [
            LegacyEnv(
                id=str(row["id"]),
                name=str(row.get("name") or row["id"]),
                tier=row.get("tier"),
                url=str(row.get("url") or ""),
                error=row.get("error"),
            )
            for row in get_registry().describe()
        ]

    def env_table(self) -> EnvTable:
        registry = get_registry()
        return EnvTable(tiers={env.id: env.tier for env in registry.environments.values()})


def legacy_door(token: str) -> CoreDoor:
    return CoreDoor(
        core=LegacyCore(token), prepare_turn=prepare_turn, prepare_resume=prepare_resume
    )
