"""Harness for graph/handler tests: a scripted model and injected tool implementations in
an ``AgentCore`` the test owns.

* ``harness.turn(...)`` / ``harness.answer(...)`` — the page's path: ``prepare_turn`` /
  ``prepare_resume`` and the core, collecting the TYPED events it yields;
* ``harness.run(...)`` / ``harness.resume(...)`` — the contract's SSE functions
  (``agent_handler`` / ``resume_handler``) with this core, collecting decoded event dicts.

``use()`` also installs the core for the doors reached over HTTP (``get_core()``); the
fixture closes it (and uninstalls it) at teardown.
"""

from __future__ import annotations

import uuid
from types import SimpleNamespace
from typing import Any

import pytest

from app.agent.core import AgentCore, install_core, prepare_resume, prepare_turn
from app.agent.events import BaseEvent, decode_sse
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


async def _no_preflight(name: str, args: Any, deps: Any) -> None:
    return None


def _fake_deps(*, ctx: Any, task_id: Any, progress: Any, **call: Any) -> Any:
    # call: env_id (the env the guard resolved, the one the card named), env_source,
    # selected_env, policy
    return SimpleNamespace(
        user_id=ctx.user_id, role=ctx.role, task_id=task_id, progress=progress, **call
    )


class Harness:
    def __init__(self) -> None:
        self.recorder: Any = None
        self.core: AgentCore | None = None
        self.conv_id = ""

    def use(
        self,
        *script: Any,
        tools: dict[str, Any] | None = None,
        preflight: Any = None,
        real: bool = False,
        checkpointer: Any = None,
        model: Any = None,
        envs: Any = None,
    ) -> Any:
        """Build a core with a scripted model (or ``model``, e.g. the offline planner).
        ``real=True`` keeps the product's tools, preflight and dependencies (Superset
        registry) — for integration tests. ``envs`` is the environment table the guard
        resolves with (an ``EnvTable``; default: the registry's)."""
        scripted_model, self.recorder = scripted(*script)
        model = model if model is not None else scripted_model
        table = {} if envs is None else {"envs": lambda: envs}
        if real:
            core = AgentCore(
                model=model, checkpointer=checkpointer, system_prompt=lambda c: "sys", **table
            )
        else:
            core = AgentCore(
                model=model,
                checkpointer=checkpointer,
                tools=tools or {},
                preflight=preflight or _no_preflight,
                deps_factory=_fake_deps,
                system_prompt=lambda ctx: inject_uicontext("sys", ctx.uicontext),
                **table,
            )
        self.core = core
        install_core(core)
        return self.recorder

    # ---- the page's path: typed events ------------------------------------------------
    async def turn(
        self,
        message: str,
        *,
        user: str = "alice",
        role: str = "admin",
        env_id: str | None = "dev",
        uicontext: Any = None,
        history: list[dict[str, Any]] | None = None,
        conv_id: str | None = None,
        channel: str = "page",
    ) -> list[BaseEvent]:
        assert self.core is not None
        self.conv_id = conv_id or uuid.uuid4().hex
        req = await prepare_turn(
            token=token_for(user, role),
            message=message,
            history=history,
            conv_id=self.conv_id,
            env_id=env_id,
            uicontext=uicontext,
            channel=channel,  # type: ignore[arg-type]
        )
        return [ev async for ev in self.core.run_turn(req)]

    async def answer(
        self,
        confirmation_id: str,
        decision: str = "confirm",
        *,
        user: str = "alice",
        role: str = "admin",
        reason: str | None = None,
        channel: str = "page",
        args: dict[str, Any] | None = None,
    ) -> list[BaseEvent]:
        assert self.core is not None
        req = await prepare_resume(
            token=token_for(user, role),
            conv_id=self.conv_id,
            confirmation_id=confirmation_id,
            decision=decision,
            reason=reason,
            args=args,
            channel=channel,  # type: ignore[arg-type]
            core=self.core,
        )
        return [ev async for ev in self.core.resume(req)]

    # ---- the contract's SSE functions -------------------------------------------------
    async def run(
        self,
        message: str,
        *,
        user: str = "alice",
        role: str = "admin",
        env_id: str | None = "dev",
        uicontext: Any = None,
        conv_id: str | None = None,
        history: list[dict[str, Any]] | None = None,
    ) -> list[dict[str, Any]]:
        self.conv_id = conv_id or uuid.uuid4().hex
        token = token_for(user, role)
        return await _collect(
            agent_handler(
                message, history, self.conv_id, user, token, env_id, uicontext, core=self.core
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
                conv_id or self.conv_id,
                token_for(user, role),
                confirmation_id,
                decision,
                reason,
                core=self.core,
            )
        )


@pytest.fixture
async def harness() -> Any:
    h = Harness()
    yield h
    if h.core is not None:
        await h.core.aclose()
        install_core(None)


def types_of(events: list[Any]) -> list[str]:
    return [e["type"] if isinstance(e, dict) else e.type for e in events]


def first(events: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(e for e in events if e["type"] == kind)
