"""Planning in steps: a request's intent, and the lookup that must come before it.

A tool that needs an id can be asked for by name. :func:`intent_for` returns the tool,
its arguments and, when an object is named rather than identified, the :class:`Lookup`
to run first. Which object a tool's call names is its entry's ``need`` (a tool the
planner has no entry for: a ``dashboard_id``/``dashboard_ids`` field of its
declaration); how a name is looked up is the lookup tool's ``lookup`` role, by kind of
object (:data:`app.planner.tools.LOOKUPS`):

* a dashboard named by its title → the dashboard search, in the environment where it
  lives (the env of the call; for a move between environments, the source env);
* a backup named by a short id ("3", "abf0…") → the backup list.

Ids and slugs go straight to the tool (it resolves them itself), and so do database names
(the SQL and dataset tools take a database by id or name). :func:`resolve` reads the
lookup's result: one match (or exactly one exact title/slug match) fills the argument;
several are asked about (the person's pick completes the request, :mod:`app.planner.picks`);
none is said plainly.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from app.planner.intents import choose_tool
from app.planner.knowledge import LookupRole, Need
from app.planner.known import Known
from app.planner.matches import Resolution
from app.planner.readers import by_name
from app.planner.request import Request
from app.planner.results import Result
from app.planner.tools import LOOKUPS, knowledge


@dataclass(frozen=True)
class Lookup:
    kind: str  # the kind of object: "dashboard" | "backup"
    ref: str  # the title or short id as the person wrote it
    tool: str  # the lookup tool
    args: dict[str, Any]
    slot: str  # the intended tool's argument it fills
    env_arg: str = "env_id"  # the intended tool's argument naming where the object lives

    @property
    def role(self) -> LookupRole:
        role = knowledge(self.tool).lookup
        assert role is not None
        return role


@dataclass(frozen=True)
class Intent:
    tool: str
    args: dict[str, Any]
    lookup: Lookup | None = None
    missing: list[str] = field(default_factory=list)  # required, not filled by the lookup

    def filled(self, value: str) -> dict[str, Any]:
        """The intended call's arguments with the looked-up id in place."""
        assert self.lookup is not None
        slot = self.lookup.slot
        return {**self.args, slot: [value] if slot.endswith("_ids") else value}

    def unresolved(self) -> dict[str, Any]:
        """The arguments with the name as given (for a refusal that spells it out)."""
        return self.filled(self.lookup.ref) if self.lookup else dict(self.args)


def _need(tool: str, known: Known) -> Need | None:
    """The tool's entry's need, else a declared tool's ``dashboard_id``/``dashboard_ids``."""
    need = knowledge(tool).need
    if need is not None:
        return need
    fields = known.fields(tool)
    slot = next((n for n in ("dashboard_id", "dashboard_ids") if n in fields), None)
    return None if slot is None else Need("dashboard", slot, slot in known.required(tool))


def _lookup(tool: str, args: dict[str, Any], req: Request, known: Known) -> Lookup | None:
    need = _need(tool, known)
    finder = LOOKUPS.get(need.kind) if need is not None else None
    if need is None or finder is None or finder.lookup is None:
        return None
    ref = finder.lookup.ref(req, args, need)
    if ref is None:
        return None
    lookup_args = finder.lookup.args(ref, args.get(need.env_arg))
    return Lookup(need.kind, ref, finder.name, lookup_args, need.slot, need.env_arg)


def intent_for(req: Request, bound: Collection[str] | None, known: Known) -> Intent | None:
    """What the request asks for (None when nothing matches). A tool with no reader of
    its own gets its arguments by name and is asked its required ones."""
    text = req.prefix.lower()
    tool = choose_tool(text, bound, known.heard(text))
    if tool is None:
        return None
    entry = knowledge(tool)
    if entry.read_args is not None:
        args = {k: v for k, v in entry.read_args(req).items() if v is not None}
        needed = [name for name in entry.required if not args.get(name)]
    else:
        args = {k: v for k, v in by_name(req, known.fields(tool)).items() if v is not None}
        needed = [n for n in known.required(tool) if not args.get(n)]
    lookup = _lookup(tool, args, req, known)
    missing = [m for m in needed if lookup is None or m != lookup.slot]
    return Intent(tool, args, lookup, missing)


def resolve(lookup: Lookup, result: Result) -> Resolution:
    return lookup.role.resolve(lookup.ref, result)


def match_id(lookup: Lookup, item: dict[str, Any]) -> str:
    return lookup.role.ident(item)
