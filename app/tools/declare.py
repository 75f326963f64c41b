"""How a family declares its tools: ``family.spec(name, ...)`` in ``<family>/spec.py``.

A spec module makes one :class:`Family` and declares each tool's spec (what it is: args
model, risk, who may run it and where, the model's description, card line, phrases …) with
:meth:`Family.spec`, which records a frozen :class:`~app.policy.toolspec.ToolSpec` and
returns it::

    family = Family("charts")

    find_charts = family.spec(
        "find_charts", FindChartsArgs, "read", pages=("dashboard", "dataset"),
        presentation="linked_list",
        description=\"\"\"Finds charts by name in one environment. …
        Returns a page of charts …\"\"\",
        en=("find charts", "Find charts about sales", "Find charts named {query!r} in {env}"),
        ru=("найти графики", "Найди графики продаж", "Найти графики {query!r} в {env}"),
    )  # fmt: skip

Its implementation (what it does, with I/O) is ``<family>/run.py``'s
``@runs.implements(specs.find_charts)`` (:mod:`app.tools.kit`).

A declaration reads as a row of a table: the name, the args model and the risk, then who
and where and how it runs; ``description``, what the model reads (what it does, when to
use it, what it ``Returns``; put on one line); then the tool in each language, ``en`` and
``ru``: what it can do (as a list of capabilities says it), a request that asks for it,
and its confirmation card's line (a template of the call's arguments and ``{env}``,
filled by ``card_values(args, lang)`` too when given; left out: what it can do,
capitalised). What it can do, the request and ``triggers`` (more phrases that ask for it,
English and Russian; ``*`` ends a word stem: ``"кто я"``, ``"мо* рол*"``) are what the
offline planner knows of the tool.

Who and where: ``roles`` may run it (default: everyone for a read; admins only for a write
or delete, so a new write is closed until it says otherwise or a policy file opens it);
``pages`` are the page contexts it fits (:data:`EVERY_PAGE`: it is offered on every page).

What a spec leaves out follows from what it says: a read is ``idempotent`` and shows its
result as a ``table``, a write or delete is not idempotent and shows the ``facts`` of what
it did; a long task waits ``LONG_TASK_TIMEOUT_S``; a write or delete that does not
declare ``undo="undoable"`` cannot be undone (``final``: its card says so), a read has
nothing to undo.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, Final

from app.policy.toolspec import CardLine, Phrase, Serves, ToolSpec
from app.tools.args import ToolArgs
from app.vocab import OBJECT_TYPES, ROLES, Confirm, Lang, ObjectType, Presentation, Risk, Undo

#: Long tasks (deploy, migration, backup, restore, delete) wait this long for their task.
LONG_TASK_TIMEOUT_S = 600.0
EVERYONE: Final = frozenset(ROLES)
ADMINS: Final = frozenset({"admin"})
#: ``pages=EVERY_PAGE``: the tool is offered whatever page the person is on
EVERY_PAGE: Final = "every page"

CallRisk = Callable[[Mapping[str, Any]], Risk]
CallDetails = Callable[[Mapping[str, Any]], dict[str, Any] | None]
CallReason = Callable[[Mapping[str, Any], Lang], str | None]
CardValues = Callable[[Mapping[str, Any], Lang], Mapping[str, Any]]
#: a tool in one language: what it can do, a request that asks for it, and (if not what
#: it can do, capitalised) its card line, a template of its arguments
Words = tuple[str, str] | tuple[str, str, str]


def default_roles(risk: Risk) -> frozenset[str]:
    """Who may run a tool that names no ``roles``: everyone for a read, else admins."""
    return EVERYONE if risk == "read" else ADMINS


def _pages(pages: tuple[ObjectType, ...] | str) -> tuple[frozenset[str], bool]:
    """The page contexts and whether the tool is offered on every page."""
    if pages == EVERY_PAGE:
        return frozenset(), True
    unknown = set(pages) - set(OBJECT_TYPES)
    if isinstance(pages, str) or unknown:
        raise ValueError(f"pages must be page contexts {OBJECT_TYPES} or EVERY_PAGE: {pages!r}")
    return frozenset(pages), False


class Family:
    """The tool specs of one family, in declaration order (``specs``: name → ToolSpec).
    Its implementations are ``app.tools.<name>.run`` (:attr:`run_module`)."""

    def __init__(self, name: str) -> None:
        if not name.isidentifier():
            raise ValueError(f"family name {name!r} must be a Python identifier")
        self.name = name
        self.specs: dict[str, ToolSpec] = {}

    def __repr__(self) -> str:
        return f"Family({self.name!r}, {list(self.specs)!r})"

    @property
    def run_module(self) -> str:
        return f"app.tools.{self.name}.run"

    def spec(
        self,
        name: str,
        args: type[ToolArgs],
        risk: Risk,
        *,
        description: str,
        en: Words,
        ru: Words,
        card_values: CardValues | None = None,
        roles: frozenset[str] | None = None,
        pages: tuple[ObjectType, ...] | str = (),
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
        serves: Serves | None = None,
        finds: str | None = None,
        signs_in: bool = True,
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
        if len(en) != len(ru) or len(en) not in (2, 3):
            raise ValueError(f"tool {name!r}: en and ru are (can, example[, card]) alike")
        reads = risk == "read"
        affinity, everywhere = _pages(pages)
        can, example = Phrase(en[0], ru[0]), Phrase(en[1], ru[1])
        card = (capitalised(en[0]), capitalised(ru[0])) if len(en) == 2 else (en[-1], ru[-1])
        spec = ToolSpec(
            name=name,
            family=self.name,
            description=text,
            args_model=args,
            risk=risk,
            roles=default_roles(risk) if roles is None else frozenset(roles),
            affinity=affinity,
            always_included=everywhere,
            timeout_s=LONG_TASK_TIMEOUT_S if long_task and timeout_s is None else timeout_s,
            confirm=confirm,
            example_prompt=example.en,
            card=CardLine(en=card[0], ru=card[1], values=card_values),
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
            serves=serves,
            finds=finds,
            signs_in=signs_in,
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
