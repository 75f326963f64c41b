"""What every tool implementation receives, and how it is tied to its spec.

``ToolFn = Callable[[ToolArgs, ToolDeps], Awaitable[Any]]``: args are an instance of the
tool's own args model (its spec's), already validated; the return value is JSON-able
(dict / list) or a string. Tools hold no RBAC checks and write no audit rows: the graph's
guard/tool seam does both.

**One implementation per spec, in its family's** ``run.py``, tied to the spec by
:meth:`Implementations.implements`, with the hooks that need I/O and the view of its
result::

    from app.tools.charts import spec as specs
    from app.tools.charts import view
    from app.tools.kit import Implementations, ToolDeps

    runs = Implementations(specs.family)

    @runs.implements(specs.find_charts, choices=chart_choices, view=view.found_charts)
    async def find_charts(args: FindChartsArgs, deps: ToolDeps) -> dict: ...

The function is named as its spec and its first parameter is annotated with the spec's
args model; its docstring is a note for developers (the model reads the spec's
description). The decorator records one frozen :class:`Tool` (the spec, the function, the
hooks, the view, the inverse) and returns the function unchanged; ``app.tools.TOOLS``
joins the families: every spec of the catalog has exactly one implementation.

Hooks: ``preflight(args, deps)`` runs before a confirmation is asked (details for the
card; ``errors`` blocks the call); ``resolve_target(args, deps)`` names the call's
environment before policy runs when its arguments do not (a restore → the backup's env);
``choices(args, result, lang)`` turns a lookup's candidates into choices;
``exempt(args, deps)`` says whether this call runs during a maintenance window (a spec's
``maintenance_exempt`` says it for every call of the tool). ``view(result, links)``
builds the result's typed view (else the generic one of the spec's ``presentation``);
``inverse`` undoes what a call of an ``undoable`` spec did (:mod:`app.tools.undo_plan`).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, get_type_hints

from app.i18n import progress_line
from app.policy.toolspec import ToolSpec
from app.settings import Settings
from app.store.db import Database
from app.superset.registry import EnvironmentRegistry
from app.tasks.worker import Job, TaskRunner
from app.tools.declare import Family
from app.tools.undo_plan import Inverse, Undone, UndoPlan
from app.views import Builder

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
    runner of long tools) are the app's parts, handed in by the seam; ``tools`` are the
    tools in force (the undo tool finds the inverse of a change's tool there).
    """

    settings: Settings
    user_id: str
    role: str
    conv_id: str
    env_id: str | None
    registry: EnvironmentRegistry
    task_id: str | None = None  # pre-allocated by the seam for long-running tools
    progress: Progress | None = None
    object_type: str | None = None  # the page's UIContext objectType (what it can do here)
    policy: Policy | None = None  # the policy in force for this call
    env_source: str = "submitted"
    selected_env: str | None = None  # None: the same as env_id
    lang: str = "en"  # the person's language in this turn (what a result says in words)
    db: Database = field(kw_only=True)
    tasks: TaskRunner = field(kw_only=True)
    tools: Mapping[str, Tool] = field(default_factory=dict, kw_only=True)
    # set by an undoable tool once its write is done / by the undo tool once it undid one
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
        language (a long task's lines are said like the rest of the turn)."""
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
class Tool:
    """One tool as the agent runs it: its spec (what it is, as policy, the doors and the
    planner read it), its function, the hooks that need I/O, the view of its result and
    the inverse of what it changes."""

    spec: ToolSpec
    fn: ToolFn
    preflight: Preflight | None = None
    resolve_target: TargetHook | None = None
    choices: Choices | None = None
    exempt: ExemptHook | None = None
    view: Builder | None = None
    inverse: Inverse | None = None


class Implementations:
    """The implementations of one family's specs (``tools``: name → Tool, in the order
    they are implemented)."""

    def __init__(self, family: Family) -> None:
        self.family = family  # the specs these implement
        self.tools: dict[str, Tool] = {}

    @property
    def name(self) -> str:
        return self.family.name

    def __repr__(self) -> str:
        return f"Implementations({self.name!r}, {list(self.tools)!r})"

    def missing(self) -> list[str]:
        """The family's specs that have no implementation yet."""
        return [name for name in self.family.specs if name not in self.tools]

    def implements(
        self,
        spec: ToolSpec | str,
        *,
        preflight: Preflight | None = None,
        resolve_target: TargetHook | None = None,
        choices: Choices | None = None,
        exempt: ExemptHook | None = None,
        view: Builder | None = None,
        inverse: Inverse | None = None,
    ) -> Callable[[F], F]:
        """Implement ``spec`` (this family's spec, or its name) with the decorated
        function: async, named as the spec, its first parameter annotated with the spec's
        args model. ``inverse``: an ``undoable`` spec's, and only its."""
        found = self._spec(spec)
        if (inverse is not None) != (found.undo == "undoable"):
            raise ValueError(f"tool {found.name!r}: an inverse goes with undo='undoable'")

        def register(fn: F) -> F:
            if found.name in self.tools:
                raise ValueError(
                    f"tool {found.name!r} is implemented twice in family {self.name!r}"
                )
            _check_function(fn, found)
            self.tools[found.name] = Tool(
                spec=found, fn=fn, preflight=preflight, resolve_target=resolve_target,
                choices=choices, exempt=exempt, view=view, inverse=inverse,
            )  # fmt: skip
            return fn

        return register

    def _spec(self, spec: ToolSpec | str) -> ToolSpec:
        name = spec if isinstance(spec, str) else spec.name
        own = self.family.specs.get(name)
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
