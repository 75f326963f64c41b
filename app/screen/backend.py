"""The one adapter between the screen model and the agent runtime.

``AgentBackend`` turns the handler's SSE strings into event dicts and hides where the
environments come from. The model receives a backend by injection, so UI tests can hand it
a scripted one that yields event dicts.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from app.agent.events import decode_sse

CONFIRM = "confirm"
DENY = "deny"


class Backend(Protocol):
    def stream(
        self,
        *,
        message: str,
        history: list[dict[str, str]],
        conv_id: str,
        user_id: str,
        user_jwt: str,
        env_id: str | None,
        uicontext_str: str | None,
    ) -> AsyncIterator[dict[str, Any]]: ...

    def resume(
        self,
        *,
        conv_id: str,
        user_jwt: str,
        confirmation_id: str,
        decision: str,
        reason: str | None = None,
    ) -> AsyncIterator[dict[str, Any]]: ...

    async def conversation(self, *, conv_id: str, user_jwt: str) -> dict[str, Any]: ...

    def environments(self) -> list[dict[str, Any]]: ...


class AgentBackend:
    """The real runtime: ``app.agent.handler`` in process, ``app.superset.registry``."""

    async def stream(
        self,
        *,
        message: str,
        history: list[dict[str, str]],
        conv_id: str,
        user_id: str,
        user_jwt: str,
        env_id: str | None,
        uicontext_str: str | None,
    ) -> AsyncIterator[dict[str, Any]]:
        from app.agent.handler import agent_handler

        frames = agent_handler(message, history, conv_id, user_id, user_jwt, env_id, uicontext_str)
        async for frame in frames:
            for event in decode_sse(frame):
                yield event

    async def resume(
        self,
        *,
        conv_id: str,
        user_jwt: str,
        confirmation_id: str,
        decision: str,
        reason: str | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        from app.agent.handler import resume_handler

        frames = resume_handler(conv_id, user_jwt, confirmation_id, decision, reason)
        async for frame in frames:
            for event in decode_sse(frame):
                yield event

    async def conversation(self, *, conv_id: str, user_jwt: str) -> dict[str, Any]:
        from app.agent.handler import get_conversation

        return await get_conversation(conv_id, user_jwt)

    def environments(self) -> list[dict[str, Any]]:
        """The configured environments; none configured (no file) is an empty list."""
        from app.superset.registry import get_registry

        return list(get_registry().describe())
