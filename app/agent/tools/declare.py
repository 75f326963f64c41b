"""One implementation per tool spec, written where the tool runs: ``@family.implements``.

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
env); ``choices(args, result, lang)`` turns a lookup's candidates into choices.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar, get_type_hints

from pydantic import BaseModel

from app.agent.tools.base import ToolDeps, ToolFn
from app.policy.catalog import CardLine, Phrase, ToolSpec
from app.policy.tools.declare import CallDetails, CallRisk, SpecFamily
from app.vocab import Presentation, Risk

#: async (args, deps) -> details for the confirmation card (``errors`` blocks the call).
Preflight = Callable[[Any, ToolDeps], Awaitable[dict[str, Any] | None]]
#: async (args, deps) -> the environment the call acts on when its arguments name none.
TargetHook = Callable[[Any, ToolDeps], Awaitable[str | None]]
#: (args, result, lang) -> the candidates a lookup found, each (label, the request that
#: picks it): the core offers them as choices when the model answers right after it.
Choices = Callable[[Any, Any, str], list[tuple[str, str]]]

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


__all__ = ["Choices", "Family", "Preflight", "TargetHook", "ToolDecl"]
