"""Harness for graph/handler tests: a scripted model and injected tool implementations in
an ``AgentCore`` the test owns.

* ``harness.turn(...)`` / ``harness.answer(...)`` — the page's path: ``prepare_turn`` /
  ``prepare_resume`` and the core, collecting the TYPED events it yields;
* ``harness.run(...)`` / ``harness.resume(...)`` — the contract's SSE functions
  (``agent_handler`` / ``resume_handler``) with this core, collecting decoded event dicts.

The harness works on the test's parts: ``use()`` puts a core with the scripted model on
them (``app.parts.with_core``). In a test that runs an app (the NiceGUI ``user`` fixture)
they are the app's (``app_parts``) and ``use()`` installs the new parts there too, so the
doors reached over HTTP serve the test's core; otherwise the ``parts`` fixture's. The fixture
closes the core at teardown.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from types import SimpleNamespace
from typing import Any

import pytest
from nicegui import app as nicegui_app

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
from app.agent.rules import Rules
from app.events import BaseEvent, decode_sse
from app.parts import PARTS_STATE, Parts, with_core
from app.superset.registry import EnvironmentRegistry
from app.vocab import Channel
from tests.agent.scripted import call, final_from_tool, recording_tools, scripted
from tests.support import audit_rows, token_for

__all__ = ["Harness", "first", "harness", "token_for", "types_of"]


async def _collect(gen: Any) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    async for frame in gen:
        events += decode_sse(frame)
    return events


async def _no_preflight(name: str, args: Any, deps: Any) -> None:
    return None


def fake_deps(parts: Parts) -> Callable[..., Any]:
    """A deps factory handing tools what the seam decided (and the parts' database)."""

    def make(*, ctx: Any, task_id: Any, progress: Any, **call: Any) -> Any:
        # call: env_id (the env the guard resolved, the one the card named), env_source,
        # selected_env, policy
        return SimpleNamespace(
            user_id=ctx.user_id,
            role=ctx.role,
            task_id=task_id,
            progress=progress,
            db=parts.db,
            tasks=parts.tasks,
            **call,
        )

    return make


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


class Harness:
    def __init__(self, parts: Parts, install: Callable[[Parts], None] | None = None) -> None:
        self.parts = parts
        self.install = install
        self.recorder: Any = None
        self.core: AgentCore | None = None
        self.conv_id = ""

    def token(self, user: str = "alice", role: str = "admin") -> str:
        """A token for ``user`` (the account is made active with ``role`` first)."""
        return token_for(self.parts, user, role)

    def configure(self, **overrides: Any) -> None:
        """Other settings for the cores ``use()`` builds from now on (e.g. a short
        ``tool_timeout_s``; a ``policy_file`` makes new rules)."""
        settings = self.parts.settings.model_copy(update=overrides)
        rules = Rules(
            self.parts.registry, settings.policy_file, countdown_s=settings.dangerous_countdown_s
        )
        self.parts = replace(self.parts, settings=settings, rules=rules)

    def serve(self, registry: EnvironmentRegistry) -> None:
        """Superset environments for the cores ``use()`` builds from now on (their rules'
        environment table follows them)."""
        settings = self.parts.settings
        rules = Rules(registry, settings.policy_file, countdown_s=settings.dangerous_countdown_s)
        self.parts = replace(self.parts, registry=registry, rules=rules)

    def audit_rows(self, **filters: Any) -> list[dict[str, Any]]:
        """The audit rows of the parts' database matching ``filters``, as dicts."""
        return audit_rows(self.parts, **filters)

    def use(
        self,
        *script: Any,
        tools: dict[str, Any] | None = None,
        preflight: Any = None,
        real: bool = False,
        checkpointer: Any = None,
        model: Any = None,
        envs: Any = None,
        ranker: Any = None,
    ) -> Any:
        """Build a core with a scripted model (or ``model``, e.g. the offline planner).
        ``real=True`` keeps the product's tools, preflight and dependencies (Superset
        registry) — for integration tests. ``envs`` is the environment table the guard
        resolves with (an ``EnvTable``; default: the registry's). ``ranker`` narrows each
        model call's tools (``app.agent.tool_offer``; default: every allowed tool)."""
        scripted_model, self.recorder = scripted(*script)
        model = model if model is not None else scripted_model
        table: dict[str, Any] = {} if envs is None else {"envs": lambda: envs}
        if ranker is not None:
            table["ranker"] = ranker
        if real:
            options: dict[str, Any] = dict(system_prompt="sys", **table)
        else:
            options = dict(
                tools=tools or {},
                preflight=preflight or _no_preflight,
                deps_factory=fake_deps(self.parts),
                system_prompt="sys",
                **table,
            )
        if self.core is not None:
            self.core.stop()
        self.parts = with_core(self.parts, model=model, checkpointer=checkpointer, **options)
        self.core = self.parts.core
        if self.install is not None:
            self.install(self.parts)
        return self.recorder

    def use_proposal(
        self, proposal: Any, log: list[Any] | None = None, *then: Any, **options: Any
    ) -> Any:
        """``use()`` with a model that proposes ``proposal`` (a ``call(...)``), answers
        from the tool's result and then says ``then``; each tool (``recording_tools``)
        records its calls in ``log``. ``options``: ``use()``'s."""
        tools = recording_tools([] if log is None else log)
        return self.use(proposal, final_from_tool, *then, tools=tools, **options)

    def use_deploy(self, log: list[Any] | None = None, *then: Any, **options: Any) -> Any:
        """``use_proposal()`` of a deploy of dashboard 42 to prod."""
        deploy = call("deploy_dashboard", dashboard_id="42", target_env="prod")
        return self.use_proposal(deploy, log, *then, **options)

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


def _install_on_app(parts: Parts) -> None:
    """Serve ``parts`` from the page test's app (its HTTP doors read app.state.parts)."""
    replaced = getattr(nicegui_app.state, PARTS_STATE, None)
    setattr(nicegui_app.state, PARTS_STATE, parts)
    if isinstance(replaced, Parts) and replaced.core is not parts.core:
        replaced.core.stop()


@pytest.fixture
async def harness(request: pytest.FixtureRequest) -> Any:
    """A harness on the parts the test exercises: its app's (``app_parts``, and ``use()``
    installs the new core there) when the test runs one (the NiceGUI ``user`` fixture),
    else the test's own (``parts``)."""
    if "user" in request.fixturenames:
        h = Harness(request.getfixturevalue("app_parts"), _install_on_app)
    else:
        h = Harness(request.getfixturevalue("parts"))
    yield h
    if h.core is not None:
        await h.core.aclose()
        h.core.stop()


def types_of(events: list[Any]) -> list[str]:
    return [e["type"] if isinstance(e, dict) else e.type for e in events]


def first(events: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(e for e in events if e["type"] == kind)
