"""Harness for graph/handler tests: a scripted model, injected tool implementations and an
in-process run of agent_handler / resume_handler collecting decoded events."""

from __future__ import annotations

import uuid
from types import SimpleNamespace
from typing import Any

import pytest

from app.agent import runtime
from app.agent.checkpoint import close_checkpointers, get_checkpointer
from app.agent.events import decode_sse
from app.agent.graph import build_graph
from app.agent.handler import agent_handler, resume_handler
from app.auth import issue_token
from app.context import inject_uicontext
from tests.agent.scripted import scripted
from tests.support import ensure_user


async def _collect(gen: Any) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    async for frame in gen:
        events += decode_sse(frame)
    return events


def token_for(user: str = "alice", role: str = "admin") -> str:
    """A token for ``user`` with ``role``; the account is created (or re-roled) first,
    since tokens are honoured only for existing, enabled users with the token's role."""
    ensure_user(user, role)
    return issue_token(username=user, role=role)[0]


class Harness:
    def __init__(self) -> None:
        self.recorder: Any = None
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def use(
        self,
        *script: Any,
        tools: dict[str, Any] | None = None,
        preflight: Any = None,
        real: bool = False,
    ) -> Any:
        """Install a graph with a scripted model. ``real=True`` keeps the product's tools,
        preflight and dependencies (Superset registry) — for integration tests."""
        model, self.recorder = scripted(*script)

        async def no_preflight(name: str, args: dict[str, Any], ctx: Any) -> None:
            return None

        def deps_factory(*, ctx: Any, task_id: Any, progress: Any) -> Any:
            return SimpleNamespace(
                user_id=ctx.user_id,
                role=ctx.role,
                env_id=ctx.selected_env,
                task_id=task_id,
                progress=progress,
            )

        async def factory() -> Any:
            if real:
                return build_graph(
                    model=model,
                    checkpointer=await get_checkpointer(),
                    system_prompt=lambda ctx: "sys",
                )
            return build_graph(
                model=model,
                checkpointer=await get_checkpointer(),
                tools=tools or {},
                preflight=preflight or no_preflight,
                deps_factory=deps_factory,
                system_prompt=lambda ctx: inject_uicontext("sys", ctx.uicontext),
            )

        runtime.set_graph_factory(factory, model=model)
        return self.recorder

    async def run(
        self,
        message: str,
        *,
        user: str = "alice",
        role: str = "admin",
        env_id: str | None = "dev",
        uicontext: Any = None,
        conv_id: str | None = None,
    ) -> list[dict[str, Any]]:
        self.conv_id = conv_id or uuid.uuid4().hex
        return await _collect(
            agent_handler(
                message, None, self.conv_id, user, token_for(user, role), env_id, uicontext
            )
        )

    async def resume(
        self,
        confirmation_id: str,
        decision: str = "confirm",
        *,
        user: str = "alice",
        role: str = "admin",
        reason: str | None = None,
        conv_id: str | None = None,
    ) -> list[dict[str, Any]]:
        return await _collect(
            resume_handler(
                conv_id or self.conv_id, token_for(user, role), confirmation_id, decision, reason
            )
        )


@pytest.fixture
async def harness() -> Any:
    h = Harness()
    yield h
    await close_checkpointers()
    runtime.reset_runtime()


def types_of(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def first(events: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(e for e in events if e["type"] == kind)
