"""Harness for graph/handler tests: a scripted model and injected tool implementations in
an ``AgentCore`` the test owns.

* ``harness.turn(...)`` / ``harness.answer(...)`` — the page's path: ``prepare_turn`` /
  ``prepare_resume`` and the core, collecting the TYPED events it yields;
* ``harness.run(...)`` / ``harness.resume(...)`` — the contract's SSE functions
  (``agent_handler`` / ``resume_handler``) with this core, collecting decoded event dicts.
  (These requests, and their keywords, are ``Doors`` of tests/agent/harness_doors.py.)

The harness works on the test's parts: ``use()`` puts a core with the scripted model on
them (``app.parts.with_core``). In a test that runs an app (the NiceGUI ``user`` fixture)
they are the app's (``app_parts``) and ``use()`` installs the new parts there too, so the
doors reached over HTTP serve the test's core; otherwise the ``parts`` fixture's. The fixture
closes the core at teardown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from types import SimpleNamespace
from typing import Any

import pytest
from nicegui import app as nicegui_app

from app.agent.core import AgentCore
from app.agent.rules import Rules
from app.parts import PARTS_STATE, Parts, with_core
from app.superset.registry import EnvironmentRegistry
from tests.agent.harness_doors import Answer, Doors, _collect
from tests.agent.scripted import call, final_from_tool, recording_tools, scripted
from tests.support import audit_rows, token_for

# Answer and _collect: for tests that call the contract's functions by hand
__all__ = ["Answer", "Harness", "_collect", "first", "harness", "token_for", "types_of"]


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


class Harness(Doors):
    def __init__(self, parts: Parts, install: Callable[[Parts], None] | None = None) -> None:
        self.parts = parts
        self.install = install
        self.recorder: Any = None
        self.core: AgentCore | None = None
        self.conv_id = ""

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
        reporter: Any = None,
    ) -> Any:
        """Build a core with a scripted model (or ``model``, e.g. the offline planner).
        ``real=True`` keeps the product's tools, preflight and dependencies (Superset
        registry) — for integration tests. ``envs`` is the environment table the guard
        resolves with (an ``EnvTable``; default: the registry's). ``ranker`` narrows each
        model call's tools (``app.agent.tool_offer``; default: every allowed tool); ``reporter``
        words a repeated call's result (``app.agent.turn_limits``; default: none)."""
        scripted_model, self.recorder = scripted(*script)
        model = model if model is not None else scripted_model
        table: dict[str, Any] = {} if envs is None else {"envs": lambda: envs}
        table |= {k: v for k, v in (("ranker", ranker), ("reporter", reporter)) if v is not None}
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
