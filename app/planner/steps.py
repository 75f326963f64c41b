"""Planning in steps: a request's intent, and the lookup that must come before it.

A tool that needs an id can be asked for by name. :func:`intent_for` returns the tool,
its arguments and, when an object is named rather than identified, the :class:`Lookup`
to run first:

* a dashboard named by its title → ``search_dashboards(query=title, env_id=<where it
  lives>)`` (the env of the call; for deploy and migration, the source env);
* a backup named by a short id ("3", "abf0…") → ``list_backups(env_id=…)``.

Ids and slugs go straight to the tool (it resolves them itself), and so do database names
(the SQL and dataset tools take a database by id or name). :func:`resolve` reads the
lookup's result: one match (or exactly one exact title/slug match) fills the argument;
several are asked about (the person's pick completes the request, :mod:`app.planner.picks`);
none is said plainly.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Literal

from app.planner.args import EXTRACTORS, extract_args, missing_args
from app.planner.fill import by_name
from app.planner.intents import choose_tool
from app.planner.known import Known
from app.planner.request import Request
from app.planner.results import Result

# tool -> (argument, a dashboard is required, the argument naming where it lives)
DASHBOARD_SLOTS: dict[str, tuple[str, bool, str]] = {
    "get_health_summary": ("dashboard_id", True, "env_id"),
    "run_llm_validation": ("dashboard_id", True, "env_id"),
    "run_llm_documentation": ("dashboard_id", True, "env_id"),
    "delete_dashboard": ("dashboard_id", True, "env_id"),
    "deploy_dashboard": ("dashboard_id", True, "source_env"),
    "execute_migration": ("dashboard_ids", True, "source_env"),
    "run_backup": ("dashboard_ids", False, "env_id"),
    "list_backups": ("dashboard_id", False, "env_id"),
    "create_branch": ("dashboard_id", False, "env_id"),
    "commit_changes": ("dashboard_ids", False, "env_id"),
}
FULL_BACKUP_ID = re.compile(
    r"[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.IGNORECASE
)
MAX_CHOICES = 5


@dataclass(frozen=True)
class Lookup:
    kind: Literal["dashboard", "backup"]
    ref: str  # the title or short id as the person wrote it
    tool: str  # search_dashboards | list_backups
    args: dict[str, Any]
    slot: str  # the intended tool's argument it fills
    env_arg: str = "env_id"  # the intended tool's argument naming where the object lives


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


def _dashboard_slot(tool: str, known: Known) -> tuple[str, bool, str] | None:
    """The contract's table, else a declared tool's ``dashboard_id``/``dashboard_ids``."""
    if tool in DASHBOARD_SLOTS:
        return DASHBOARD_SLOTS[tool]
    fields = known.fields(tool)
    slot = next((n for n in ("dashboard_id", "dashboard_ids") if n in fields), None)
    return None if slot is None else (slot, slot in known.required(tool), "env_id")


def _lookup(tool: str, args: dict[str, Any], req: Request, known: Known) -> Lookup | None:
    if tool == "restore_backup":
        ref = str(args.get("backup_id") or "")
        if not ref or FULL_BACKUP_ID.fullmatch(ref):
            return None
        env = {"env_id": args["env_id"]} if args.get("env_id") else {}
        return Lookup("backup", ref, "list_backups", env, "backup_id")
    slots = _dashboard_slot(tool, known)
    if slots is None:
        return None
    slot, required, env_key = slots
    title = req.dashboard_title(required=required)
    if not title or args.get(slot):
        return None
    search: dict[str, Any] = {"query": title}
    if args.get(env_key):
        search["env_id"] = args[env_key]
    return Lookup("dashboard", title, "search_dashboards", search, slot, env_key)


def intent_for(req: Request, bound: Collection[str] | None, known: Known) -> Intent | None:
    """What the request asks for (None when nothing matches). A tool with no extractor
    of its own gets its arguments by name and is asked its required ones."""
    text = req.prefix.lower()
    tool = choose_tool(text, bound, known.heard(text))
    if tool is None:
        return None
    if tool in EXTRACTORS:
        args = extract_args(tool, req)
        needed = missing_args(tool, args)
    else:
        args = {k: v for k, v in by_name(req, known.fields(tool)).items() if v is not None}
        needed = [n for n in known.required(tool) if not args.get(n)]
    lookup = _lookup(tool, args, req, known)
    missing = [m for m in needed if lookup is None or m != lookup.slot]
    return Intent(tool, args, lookup, missing)


# --- reading a lookup's result --------------------------------------------------------------
@dataclass(frozen=True)
class Resolution:
    match: dict[str, Any] | None = None
    candidates: list[dict[str, Any]] = field(default_factory=list)
    total: int = 0  # how many the lookup found (may exceed the candidates shown)
    by_position: bool = False  # the candidate is the n-th of the list, not an id match


def _norm(value: Any) -> str:
    return " ".join(str(value or "").split()).casefold()


def dashboards_of(result: Result) -> tuple[list[dict[str, Any]], int]:
    """The dashboards of a search result ({id, title, slug}) and how many matched."""
    key = next((k for k in ("dashboards", "result") if result.items(k)), "")
    found = [
        {
            "id": d.get("id"),
            "title": d.get("title") or d.get("dashboard_title") or "",
            "slug": d.get("slug") or "",
        }
        for d in result.items(key)
        if isinstance(d, dict) and d.get("id") is not None
    ]
    count = result.get("count")
    total = count if isinstance(count, int) else result.total(key)
    return found, max(total, len(found))


def _resolve_dashboard(ref: str, result: Result) -> Resolution:
    found, total = dashboards_of(result)
    exact = [d for d in found if _norm(ref) in (_norm(d["title"]), _norm(d["slug"]))]
    if len(exact) == 1:
        return Resolution(exact[0], exact, total)
    if len(found) == 1 and total == 1:
        return Resolution(found[0], found, total)
    candidates = exact if len(exact) > 1 else found
    return Resolution(None, candidates[:MAX_CHOICES], len(exact) if len(exact) > 1 else total)


def _resolve_backup(ref: str, result: Result) -> Resolution:
    backups = [b for b in result.items("backups") or result.items() if isinstance(b, dict)]
    prefix = ref.rstrip("….").casefold()
    hits = [b for b in backups if str(b.get("backup_id", "")).casefold().startswith(prefix)]
    if len(hits) == 1:
        return Resolution(hits[0], hits, 1)
    if hits:
        return Resolution(None, hits[:MAX_CHOICES], len(hits))
    if prefix.isdigit() and 1 <= int(prefix) <= len(backups):
        return Resolution(None, [backups[int(prefix) - 1]], 0, by_position=True)
    return Resolution(None, [], 0)


def resolve(lookup: Lookup, result: Result) -> Resolution:
    if lookup.kind == "backup":
        return _resolve_backup(lookup.ref, result)
    return _resolve_dashboard(lookup.ref, result)


def match_id(lookup: Lookup, item: dict[str, Any]) -> str:
    return str(item.get("backup_id") if lookup.kind == "backup" else item.get("id"))
