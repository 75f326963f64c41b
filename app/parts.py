"""The app's parts, built once by the composition root and handed to whoever needs them.

    settings = Settings()                 # read once (main.py)
    parts = build_parts(settings)         # database, registry, rules, audit writer, ...
    create_app(parts)                     # installs them: app.state.parts

Who reaches which part, and how:

* the doors, where a request enters: the HTTP API through its dependencies
  (``app.api.deps``: ``request.app.state.parts``), the pages through the page function
  (:func:`installed`), the MCP door from ``mount_mcp`` (the core and the auth gate);
* the agent core holds what it works with (passed to its constructor here), and hands a
  tool its share through ``ToolDeps`` (settings, registry, policy, database, task runner);
* data functions take a session; their caller owns it (``parts.db.session()``).

``app.state.parts`` is the one place the installed parts are kept: a framework callback
that gets no handle (a page function, a route, a startup handler) reads them there.
Tests build their own (``build_parts(Settings(...), model=scripted, tools=...)``, or
:func:`with_core` for another core on the same parts) and hand them in.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from langchain_core.language_models import BaseChatModel

from app.agent.audit import AuditWriter
from app.agent.core import AgentCore
from app.agent.rules import Rules
from app.auth import AuthGate
from app.llm import get_chat_model, model_label, result_reporter, tool_ranker
from app.settings import Settings
from app.store.db import Database
from app.superset.people import serve_people
from app.superset.registry import EnvironmentRegistry, load_environments
from app.tasks.worker import TaskRunner
from app.vocab import PARTS_STATE


@dataclass(frozen=True)
class Parts:
    """Everything the app is built from; one set per app (per test, in tests)."""

    settings: Settings
    db: Database
    registry: EnvironmentRegistry
    rules: Rules
    audit: AuditWriter
    tasks: TaskRunner
    auth: AuthGate
    core: AgentCore

    def services(self) -> dict[str, Any]:
        """The parts an agent core is built on (all but the core itself)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "core"}

    def close(self) -> None:
        """Release what the parts hold without an event loop: the core's checkpointer
        threads, the audit writer's thread (after its queued rows), the engine's pool."""
        self.core.stop()
        self.audit.close()
        self.db.dispose()


def build_parts(
    settings: Settings,
    *,
    model: BaseChatModel | None = None,
    registry: EnvironmentRegistry | None = None,
    **core_options: Any,
) -> Parts:
    """Build every part once, in dependency order. ``model`` (default: the configured
    chat model), ``registry`` (default: ``settings.environments_file``) and
    ``core_options`` (``AgentCore``'s: checkpointer, tools, preflight, deps_factory ...)
    are for tests and benchmarks."""
    db = Database.open(settings.db_url)
    registry = registry if registry is not None else load_environments(settings.environments_file)
    serve_people(registry, settings, db)  # each person's own Superset account, or refused
    audit = AuditWriter(db)
    rules = Rules(registry, settings.policy_file, countdown_s=settings.dangerous_countdown_s)
    services: dict[str, Any] = {
        "settings": settings,
        "db": db,
        "registry": registry,
        "rules": rules,
        "audit": audit,
        "tasks": TaskRunner(db, heartbeat_s=settings.task_heartbeat_s),
        "auth": AuthGate(settings, db),
    }
    # the composition root picks the model (the planner is handed the rules' tools) and
    # names it; the core only talks to it
    chat = model if model is not None else get_chat_model(settings, rules.policy().catalog)
    core_options.setdefault("label", model_label(chat))
    # which tools a request most likely needs (the planner's reading): for any model
    core_options.setdefault("ranker", tool_ranker(settings, lambda: rules.policy().catalog))
    # what a result holds, said when a model asks again for a call it has the result of
    core_options.setdefault("reporter", result_reporter(lambda: rules.policy().catalog))
    core = AgentCore(model=chat, **services, **core_options)
    return Parts(core=core, **services)


def with_core(parts: Parts, *, model: BaseChatModel, **core_options: Any) -> Parts:
    """The same parts with another agent core on them (a test's scripted model, its own
    tools); the caller stops the core it replaced when it needs to."""
    core_options.setdefault("label", model_label(model))
    core = AgentCore(model=model, **parts.services(), **core_options)
    return replace(parts, core=core)


def installed(app: Any) -> Parts:
    """The parts ``create_app`` installed on ``app`` (a NiceGUI/FastAPI app, or a request's
    ``app``): ``app.state.parts``."""
    parts = getattr(app.state, PARTS_STATE, None)
    if not isinstance(parts, Parts):
        raise RuntimeError("no parts installed: create_app() builds and installs them")
    return parts
