"""One spec per tool, declared in its family's spec module: ``family.spec(name, ...)``.

A spec module makes one :class:`SpecFamily` and declares each tool's spec (what it is:
args model, risk, the model's description, card line, …) with :meth:`SpecFamily.spec`,
which records a frozen :class:`app.policy.ToolSpec` and returns it::

    family = SpecFamily("dashboards")

    search_dashboards = family.spec(
        "search_dashboards",
        args=SearchDashboardsArgs,
        risk="read",
        description=\"\"\"Searches dashboards by title in one environment. …
        Returns a page of dashboards …\"\"\",
        can=Phrase("find dashboards", "найти дашборды"),
        example=Phrase("Find dashboards about sales", "Найди дашборды продаж"),
        presentation="linked_list",
    )

The implementation (what the tool does, with I/O) is ``app/agent/tools/<family>.py``'s
``@family.implements(specs.search_dashboards)``.

``description`` is what the model reads (what it does, when to use it, what it
``Returns``; put on one line). ``can`` (what the tool does, as a capabilities list says
it), ``example`` (a request that asks for it) and ``triggers`` (more phrases that ask for
it, English and Russian; ``*`` ends a word stem: ``"кто я"``, ``"мо* рол*"``) are what
the offline planner knows of the tool. Roles and context affinity are not declared here:
they are the contract's two tables in :mod:`app.policy.catalog`.

What a spec leaves out follows from what it says: the card line is ``can`` capitalised;
a read is ``idempotent`` and shows its result as a ``table``, a write or delete is not
idempotent and shows the ``facts`` of what it did; a long task waits
``LONG_TASK_TIMEOUT_S``; a write or delete that does not declare ``undo="undoable"``
cannot be undone (``final``: its card says so), a read has nothing to undo.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from app.policy.catalog import CardLine, Phrase, ToolSpec, affinity_for, roles_for
from app.policy.tools.base import ToolArgs
from app.vocab import Confirm, Lang, Presentation, Risk, Undo

#: Long tasks (deploy, migration, backup, restore, delete) wait this long for their task.
LONG_TASK_TIMEOUT_S = 600.0

CallRisk = Callable[[Mapping[str, Any]], Risk]
CallDetails = Callable[[Mapping[str, Any]], dict[str, Any] | None]
CallReason = Callable[[Mapping[str, Any], Lang], str | None]


class SpecFamily:
    """The tool specs of one family, in declaration order (``specs``: name → ToolSpec)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.specs: dict[str, ToolSpec] = {}

    def __repr__(self) -> str:
        return f"SpecFamily({self.name!r}, {list(self.specs)!r})"

    def spec(
        self,
        name: str,
        *,
        args: type[ToolArgs],
        risk: Risk,
        description: str,
        can: Phrase,
        example: Phrase,
        card: CardLine | None = None,
        triggers: tuple[str, ...] = (),
        long_task: bool = False,
        timeout_s: float | None = None,
        call_risk: CallRisk | None = None,
        call_details: CallDetails | None = None,
        call_reason: CallReason | None = None,
        maintenance_exempt: bool = False,
        presentation: Presentation | None = None,
        idempotent: bool | None = None,
        open_world: bool = True,
        confirm: Confirm = "auto",
        undo: Undo | None = None,
    ) -> ToolSpec:
        """Declare the spec of tool ``name`` in this family and return it (the defaults
        of what is left out: see the module docstring)."""
        if not name.isidentifier():
            raise ValueError(f"tool name {name!r} must be a Python identifier")
        if name in self.specs:
            raise ValueError(f"tool {name!r} is declared twice in family {self.name!r}")
        if not (isinstance(args, type) and issubclass(args, ToolArgs)):
            raise TypeError(f"tool {name!r}: args must be a ToolArgs model")
        text = " ".join(inspect.cleandoc(description).split())
        if not text:
            raise ValueError(f"tool {name!r} needs a description: it is what the model reads")
        reads = risk == "read"
        spec = ToolSpec(
            name=name,
            family=self.name,
            description=text,
            args_model=args,
            risk=risk,
            roles=roles_for(name, risk),
            affinity=affinity_for(name),
            timeout_s=LONG_TASK_TIMEOUT_S if long_task and timeout_s is None else timeout_s,
            confirm=confirm,
            example_prompt=example.en,
            card=card or CardLine(en=capitalised(can.en), ru=capitalised(can.ru)),
            can=can,
            example=example,
            triggers=triggers,
            call_risk=call_risk,
            call_details=call_details,
            call_reason=call_reason,
            presentation=presentation or ("table" if reads else "facts"),
            long_task=long_task,
            maintenance_exempt=maintenance_exempt,
            idempotent=reads if idempotent is None else idempotent,
            open_world=open_world,
            undo=None if reads else (undo or "final"),
        )
        self.specs[name] = spec
        return spec


def capitalised(text: str) -> str:
    """``text`` with its first letter upper-case (the rest as written)."""
    return text[:1].upper() + text[1:]


def which_dashboards(args: Mapping[str, Any], lang: Lang) -> str:
    """A card's "dashboards 1, 2" for ``dashboard_ids``, or "all dashboards" when empty."""
    ids = ", ".join(str(i) for i in args.get("dashboard_ids") or [])
    if lang == "ru":
        return f"дашборды {ids}" if ids else "все дашборды"
    return f"dashboards {ids}" if ids else "all dashboards"
