"""One declaration per tool, written where the tool is: ``@family.tool(...)``.

A family module makes one :class:`Family` and decorates each tool function with
``@family.tool(...)``; the decorator records a frozen :class:`ToolDecl` and returns the
function unchanged::

    family = Family("dashboards")

    @family.tool(
        risk="read",
        can=Phrase("find dashboards", "найти дашборды"),
        example=Phrase("Find dashboards about sales", "Найди дашборды продаж"),
        card=CardLine(en="…", ru="…"),
        presentation="linked_list",
    )
    async def search_dashboards(args: SearchDashboardsArgs, deps: ToolDeps) -> dict: ...

The function's docstring is the description the model reads, and the annotation of its
first parameter is its args model. ``can`` (what the tool does,
as a capabilities list says it), ``example`` (a request that asks for it) and
``triggers`` (more phrases that ask for it, English and Russian; ``*`` ends a word
stem: ``"кто я"``, ``"мо* рол*"``) are what the offline planner knows of the tool: it
lists ``can``, offers ``example`` and routes a request saying any of the three to the
tool (after its own intent table), filling the arguments by their names (env_id,
dashboard_id, sql, …) from the request and the page. Roles and context affinity are not
declared here: they are the contract's two tables in :mod:`app.policy.catalog`.
``app.agent.tools`` joins the families into ``TOOLS`` and ``TOOL_CATALOG``.

What a declaration leaves out follows from what it says: the card line is ``can``
capitalised; a read is ``idempotent`` and shows its result as a ``table``, a write or
delete is not idempotent and shows the ``facts`` of what it did; a long task waits
``LONG_TASK_TIMEOUT_S``.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, TypeVar, get_type_hints

from app.agent.tools.base import ToolArgs, ToolDeps, ToolFn
from app.policy.catalog import CardLine, Phrase, ToolSpec, affinity_for, roles_for
from app.vocab import Lang, Presentation, Risk

#: Long tasks (deploy, migration, backup, restore, delete) wait this long for their task.
LONG_TASK_TIMEOUT_S = 600.0

#: async (args, deps) -> details for the confirmation card (``errors`` blocks the call).
Preflight = Callable[[Any, ToolDeps], Awaitable[dict[str, Any] | None]]
#: async (args, deps) -> the environment the call acts on when its arguments name none.
TargetHook = Callable[[Any, ToolDeps], Awaitable[str | None]]
#: (args, result, lang) -> the candidates a lookup found, each (label, the request that
#: picks it): the core offers them as choices when the model answers right after it.
Choices = Callable[[Any, Any, str], list[tuple[str, str]]]
CallRisk = Callable[[Mapping[str, Any]], Risk]
CallDetails = Callable[[Mapping[str, Any]], dict[str, Any] | None]

F = TypeVar("F", bound=Callable[..., Awaitable[Any]])


@dataclass(frozen=True)
class ToolDecl:
    """Everything the product knows about one tool, besides the contract's two tables.

    ``timeout_s`` None means the settings' default tool timeout; ``preflight`` runs before
    a confirmation is asked; ``resolve_target`` names the call's environment before policy
    runs when the arguments do not (e.g. a backup's own environment); ``call_risk`` rates
    one call from its arguments and ``call_details`` says why, for the card;
    ``maintenance_exempt`` tools run during a maintenance
    window; ``presentation`` says how a result is shown; ``idempotent``/``open_world`` are
    MCP hints (read-only and destructive follow from ``risk``).
    """

    name: str
    family: str
    fn: ToolFn
    args_model: type[ToolArgs]
    risk: Risk
    description: str
    can: Phrase
    example: Phrase
    card: CardLine
    triggers: tuple[str, ...] = ()
    long_task: bool = False
    timeout_s: float | None = None
    preflight: Preflight | None = None
    resolve_target: TargetHook | None = None
    call_risk: CallRisk | None = None
    call_details: CallDetails | None = None
    maintenance_exempt: bool = False
    presentation: Presentation = "text"
    idempotent: bool = False
    open_world: bool = True
    choices: Choices | None = None

    @property
    def read_only(self) -> bool:
        return self.risk == "read"

    @property
    def destructive(self) -> bool:
        return self.risk == "delete"

    def mcp_hints(self) -> dict[str, bool]:
        """MCP tool annotations."""
        return {
            "readOnlyHint": self.read_only,
            "destructiveHint": self.destructive,
            "idempotentHint": self.idempotent,
            "openWorldHint": self.open_world,
        }

    def spec(self) -> ToolSpec:
        """What policy knows of this tool: the declaration's fields that a ``ToolSpec``
        has too (:data:`SPEC_FIELDS`), the description on one line, the example in English,
        and roles and affinity from the contract's tables."""
        return ToolSpec(
            **{name: getattr(self, name) for name in SPEC_FIELDS},
            description=" ".join(self.description.split()),
            roles=roles_for(self.name, self.risk),
            affinity=affinity_for(self.name),
            example_prompt=self.example.en,
        )


#: The fields a tool's ``ToolSpec`` takes from its declaration as they are (the ones of
#: the same name; the description is put on one line).
SPEC_FIELDS = tuple(
    f.name
    for f in fields(ToolSpec)
    if f.name in ToolDecl.__dataclass_fields__ and f.name != "description"
)


class Family:
    """The tools of one family module, in declaration order."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.tools: dict[str, ToolDecl] = {}

    def __repr__(self) -> str:
        return f"Family({self.name!r}, {list(self.tools)!r})"

    def tool(
        self,
        *,
        risk: Risk,
        can: Phrase,
        example: Phrase,
        card: CardLine | None = None,
        args: type[ToolArgs] | None = None,
        triggers: tuple[str, ...] = (),
        long_task: bool = False,
        timeout_s: float | None = None,
        preflight: Preflight | None = None,
        resolve_target: TargetHook | None = None,
        call_risk: CallRisk | None = None,
        call_details: CallDetails | None = None,
        maintenance_exempt: bool = False,
        presentation: Presentation | None = None,
        idempotent: bool | None = None,
        open_world: bool = True,
        choices: Choices | None = None,
    ) -> Callable[[F], F]:
        """Declare the decorated function as a tool named after it (the defaults of what
        is left out: see the module docstring; ``args`` defaults to the annotation of the
        function's first parameter)."""

        def register(fn: F) -> F:
            name = fn.__name__
            if name in self.tools:
                raise ValueError(f"tool {name!r} is declared twice in family {self.name!r}")
            _check_function(fn)
            reads = risk == "read"
            self.tools[name] = ToolDecl(
                name=name,
                family=self.name,
                fn=fn,
                args_model=args or _args_model(fn),
                risk=risk,
                description=inspect.cleandoc(fn.__doc__ or ""),
                can=can,
                example=example,
                card=card or CardLine(en=capitalised(can.en), ru=capitalised(can.ru)),
                triggers=triggers,
                long_task=long_task,
                timeout_s=LONG_TASK_TIMEOUT_S if long_task and timeout_s is None else timeout_s,
                preflight=preflight,
                resolve_target=resolve_target,
                call_risk=call_risk,
                call_details=call_details,
                maintenance_exempt=maintenance_exempt,
                presentation=presentation or ("table" if reads else "facts"),
                idempotent=reads if idempotent is None else idempotent,
                open_world=open_world,
                choices=choices,
            )
            return fn

        return register


def _check_function(fn: Callable[..., Any]) -> None:
    if not inspect.iscoroutinefunction(fn):
        raise TypeError(f"tool {fn.__name__!r} must be an async function")
    if not (fn.__doc__ or "").strip():
        raise ValueError(f"tool {fn.__name__!r} needs a docstring: it is what the model reads")


def capitalised(text: str) -> str:
    """``text`` with its first letter upper-case (the rest as written)."""
    return text[:1].upper() + text[1:]


def _args_model(fn: Callable[..., Any]) -> type[ToolArgs]:
    """The args model a tool function's first parameter is annotated with."""
    first = next(iter(inspect.signature(fn).parameters), None)
    model = get_type_hints(fn).get(first) if first else None
    if not (isinstance(model, type) and issubclass(model, ToolArgs)):
        raise TypeError(f"tool {fn.__name__!r}: annotate its first parameter with a ToolArgs")
    return model


def which_dashboards(args: Mapping[str, Any], lang: Lang) -> str:
    """A card's "dashboards 1, 2" for ``dashboard_ids``, or "all dashboards" when empty."""
    ids = ", ".join(str(i) for i in args.get("dashboard_ids") or [])
    if lang == "ru":
        return f"дашборды {ids}" if ids else "все дашборды"
    return f"dashboards {ids}" if ids else "all dashboards"
