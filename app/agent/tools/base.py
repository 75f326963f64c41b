"""What every tool implementation receives, and how it is declared.

``ToolFn = Callable[[ToolArgs, ToolDeps], Awaitable[Any]]``: args are an instance of the
tool's own args model, already validated (args models are policy's: each in its family's
spec module, on ``ToolArgs`` and the field helpers of :mod:`app.policy.tools.base`, which
are re-exported here); the return value is JSON-able (dict / list) or a string. Tools
hold no RBAC checks and write no audit rows: the graph's guard/tool seam does both.

**One implementation per tool spec, written where the tool runs**: ``@family.implements``.

A tool's spec (what it is: name, args model, risk, the model's description, card line,
long task, presentation, MCP hints …) is declared in its family's spec module,
``app/policy/tools/<family>.py`` (pure). Its implementation (what it does, with I/O) is
an ``async def tool(args, deps)`` in ``app/agent/tools/<family>.py``, tied to the spec
by :meth:`Family.implements`, with the hooks that need I/O::

    from app.policy.tools import dashboards as specs

    family = Family(specs.family)

    @family.implements(specs.search_dashboards, choices=dashboard_choices)
    async def search_dashboards(args: SearchDashboardsArgs, deps: ToolDeps) -> dict: ...

The function is named as its spec and its first parameter is annotated with the spec's
args model; its docstring is a note for developers (the model reads the spec's
description). The decorator records a frozen :class:`ToolDecl` (the spec, the function
and the hooks) and returns the function unchanged. ``app.agent.tools`` joins the families
into ``TOOLS``: every spec of the product's catalog has exactly one implementation.

Hooks: ``preflight(args, deps)`` runs before a confirmation is asked (details for the
card; ``errors`` blocks the call); ``resolve_target(args, deps)`` names the call's
environment before policy runs when its arguments do not (restore_backup → the backup's
env); ``choices(args, result, lang)`` turns a lookup's candidates into choices;
``exempt(args, deps)`` says whether this call runs during a maintenance window (a spec's
``maintenance_exempt`` says it for every call of the tool).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, get_type_hints

from pydantic import BaseModel

from app.agent.tools.undo_plan import Undone, UndoPlan
from app.i18n import progress_line
from app.policy.catalog import CardLine, Phrase, ToolSpec
from app.policy.tools.base import (
    DASHBOARD_ID,
    ENV_ID,
    RU_DASHBOARD,
    EnvArgs,
    NoArgs,
    Ru,
    ToolArgs,
    arg,
    env_field,
    ru_texts,
)
from app.policy.tools.declare import CallDetails, CallRisk, SpecFamily
from app.settings import Settings
from app.store.db import Database
from app.superset.registry import EnvironmentRegistry
from app.tasks.worker import Job, TaskRunner
from app.vocab import Presentation, Risk

if TYPE_CHECKING:
    from app.policy import Policy
    from app.superset.client import SupersetClient
    from app.superset.environments import Environment

Progress = Callable[[int, int, str], Awaitable[None]]


@dataclass
class ToolDeps:
    """Per-call dependencies built by the tool seam.

    ``env_id`` is the environment the guard resolved for this call (the one the
    confirmation card named): the call's own ``env_id``/``target_env``, else the selected
    environment, else the registry's default. ``env_source`` says where it came from
    (``app.policy.risk.EnvSource``: args, submitted, context, backup, default, none).
    ``selected_env`` is the page's environment (submitted, else UIContext, else the
    registry's default) whatever the call names: a deploy's omitted source.
    ``db`` (the product's tables: backups, maintenance, tasks) and ``tasks`` (the task
    runner of long tools) are the app's parts, handed in by the seam.
    """

    settings: Settings
    user_id: str
    role: str
    conv_id: str
    env_id: str | None
    registry: EnvironmentRegistry
    task_id: str | None = None  # pre-allocated by the seam for long-running tools
    progress: Progress | None = None
    object_type: str | None = None  # the page's UIContext objectType, for show_capabilities
    policy: Policy | None = None  # the policy in force for this call
    env_source: str = "submitted"
    selected_env: str | None = None  # None: the same as env_id
    lang: str = "en"  # the person's language in this turn (what a result says in words)
    db: Database = field(kw_only=True)
    tasks: TaskRunner = field(kw_only=True)
    # set by an undoable tool once its write is done / by undo_change once it undid one
    # (read by the tool node: app.agent.undo)
    undo: UndoPlan | None = field(default=None, kw_only=True)
    undone: Undone | None = field(default=None, kw_only=True)

    @property
    def env_chosen(self) -> bool:
        """Whether a person or the call named the environment (not the registry default)."""
        return self.env_id is not None and self.env_source not in ("default", "none")

    def __post_init__(self) -> None:
        if self.selected_env is None:
            self.selected_env = self.env_id

    def env(self, env_id: str | None = None) -> Environment:
        """The environment of this call: the given ``env_id``, else the resolved one."""
        return self.registry.resolve(env_id, self.env_id)

    def client(self, env_id: str | None = None) -> SupersetClient:
        """The Superset client of this call's environment (or ``env_id``), acting for the
        caller: on a person or assertion environment, their own account (never another's)."""
        return self.registry.client(self.env(env_id).id, self.user_id)

    def env_client(self, env_id: str | None = None) -> tuple[Environment, SupersetClient]:
        """This call's environment (:meth:`env`) and its client acting for the caller."""
        env = self.env(env_id)
        return env, self.registry.client(env.id, self.user_id)

    def say(self, key: str, **fmt: object) -> str:
        """A progress line of the catalog's ``[progress]`` section, in this turn's
        language (issue 25: a long task's lines are said like the rest of the turn)."""
        return progress_line(key, self.lang, **fmt)

    async def report(self, step: int, total: int, message: str) -> None:
        """Report progress of a long tool ("step i of n"); a no-op without a listener."""
        if self.progress is not None:
            await self.progress(step, total, message)

    async def run_task(self, kind: str, job: Job, *, env_id: str, total_steps: int) -> Any:
        """``job`` as this call's long task (the id the seam allocated), on ``env_id``, in
        the caller's name and conversation, its steps reported to this call's listener;
        its result, or its error raised."""
        return await self.tasks.run(
            kind,
            job,
            task_id=self.task_id,
            user=self.user_id,
            conv_id=self.conv_id,
            env_id=env_id,
            total_steps=total_steps,
            progress=self.progress,
        )


ToolFn = Callable[[Any, ToolDeps], Awaitable[Any]]


# ---- how a tool is declared: @family.implements -------------------------------------
#: async (args, deps) -> details for the confirmation card (``errors`` blocks the call).
Preflight = Callable[[Any, ToolDeps], Awaitable[dict[str, Any] | None]]
#: async (args, deps) -> the environment the call acts on when its arguments name none.
TargetHook = Callable[[Any, ToolDeps], Awaitable[str | None]]
#: (args, result, lang) -> the candidates a lookup found, each (label, the request that
#: picks it): the core offers them as choices when the model answers right after it.
Choices = Callable[[Any, Any, str], list[tuple[str, str]]]
#: async (args, deps) -> whether this call runs during a maintenance window (a tool whose
#: calls differ: an undo that ends a window does, any other undo does not).
ExemptHook = Callable[[Any, ToolDeps], Awaitable[bool]]

F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


@dataclass(frozen=True)
class ToolDecl:
    """One tool as the agent runs it: its spec (what policy knows), its function and the
    hooks that need I/O. The spec's fields read through (``decl.risk``, ``decl.args_model``,
    ``decl.long_task``, ``decl.mcp_hints()`` …)."""

    spec: ToolSpec
    fn: ToolFn
    preflight: Preflight | None = None
    resolve_target: TargetHook | None = None
    choices: Choices | None = None
    exempt: ExemptHook | None = None

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def family(self) -> str:
        return self.spec.family

    @property
    def description(self) -> str:
        return self.spec.description

    @property
    def args_model(self) -> type[BaseModel]:
        return self.spec.args_model

    @property
    def risk(self) -> Risk:
        return self.spec.risk

    @property
    def can(self) -> Phrase | None:
        return self.spec.can

    @property
    def example(self) -> Phrase | None:
        return self.spec.example

    @property
    def card(self) -> CardLine | None:
        return self.spec.card

    @property
    def triggers(self) -> tuple[str, ...]:
        return self.spec.triggers

    @property
    def long_task(self) -> bool:
        return self.spec.long_task

    @property
    def timeout_s(self) -> float | None:
        return self.spec.timeout_s

    @property
    def call_risk(self) -> CallRisk | None:
        return self.spec.call_risk

    @property
    def call_details(self) -> CallDetails | None:
        return self.spec.call_details

    @property
    def maintenance_exempt(self) -> bool:
        return self.spec.maintenance_exempt

    @property
    def presentation(self) -> Presentation:
        return self.spec.presentation

    @property
    def idempotent(self) -> bool:
        return self.spec.idempotent

    @property
    def open_world(self) -> bool:
        return self.spec.open_world

    @property
    def read_only(self) -> bool:
        return self.spec.read_only

    @property
    def destructive(self) -> bool:
        return self.spec.destructive

    def mcp_hints(self) -> dict[str, bool]:
        """MCP tool annotations (the spec's)."""
        return self.spec.mcp_hints()


class Family:
    """The implementations of one spec family (``tools``: name → ToolDecl, in the order
    they are implemented)."""

    def __init__(self, specs: SpecFamily) -> None:
        self.specs = specs
        self.tools: dict[str, ToolDecl] = {}

    @property
    def name(self) -> str:
        return self.specs.name

    def __repr__(self) -> str:
        return f"Family({self.name!r}, {list(self.tools)!r})"

    def missing(self) -> list[str]:
        """The family's specs that have no implementation yet."""
        return [name for name in self.specs.specs if name not in self.tools]

    def implements(
        self,
        spec: ToolSpec | str,
        *,
        preflight: Preflight | None = None,
        resolve_target: TargetHook | None = None,
        choices: Choices | None = None,
        exempt: ExemptHook | None = None,
    ) -> Callable[[F], F]:
        """Implement ``spec`` (this family's spec, or its name) with the decorated
        function: async, named as the spec, its first parameter annotated with the spec's
        args model."""
        found = self._spec(spec)

        def register(fn: F) -> F:
            if found.name in self.tools:
                raise ValueError(
                    f"tool {found.name!r} is implemented twice in family {self.name!r}"
                )
            _check_function(fn, found)
            self.tools[found.name] = ToolDecl(
                spec=found,
                fn=fn,
                preflight=preflight,
                resolve_target=resolve_target,
                choices=choices,
                exempt=exempt,
            )
            return fn

        return register

    def _spec(self, spec: ToolSpec | str) -> ToolSpec:
        name = spec if isinstance(spec, str) else spec.name
        own = self.specs.specs.get(name)
        if own is None:
            raise ValueError(f"family {self.name!r} declares no spec {name!r}")
        if not isinstance(spec, str) and spec is not own:
            raise ValueError(f"spec {name!r} is not the one family {self.name!r} declares")
        return own


def _check_function(fn: Callable[..., Any], spec: ToolSpec) -> None:
    if not inspect.iscoroutinefunction(fn):
        raise TypeError(f"tool {fn.__name__!r} must be an async function")
    if fn.__name__ != spec.name:
        raise ValueError(
            f"the implementation of {spec.name!r} must be named {spec.name!r}, not {fn.__name__!r}"
        )
    first = next(iter(inspect.signature(fn).parameters), None)
    model = get_type_hints(fn).get(first) if first else None
    if model is not spec.args_model:
        raise TypeError(
            f"tool {spec.name!r}: annotate its first parameter with its spec's args model "
            f"{spec.args_model.__name__}"
        )


__all__ = [
    "DASHBOARD_ID",
    "ENV_ID",
    "RU_DASHBOARD",
    "Choices",
    "EnvArgs",
    "Family",
    "NoArgs",
    "Preflight",
    "Progress",
    "Ru",
    "TargetHook",
    "ToolArgs",
    "ToolDecl",
    "ToolDeps",
    "ToolFn",
    "arg",
    "env_field",
    "ru_texts",
]
