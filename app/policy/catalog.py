"""What policy knows about a tool (:class:`ToolSpec`) and the contract's two tables.

Each tool's spec (what it is) is declared once, in its family's spec module
(``app/policy/tools/<family>.py``), with :func:`roles_for` and :func:`affinity_for` (the
two tables below) giving its roles and page contexts; ``app.policy.tools`` joins them into
``TOOL_CATALOG`` (name → ToolSpec). What a tool does (its I/O) is its implementation, in
``app/agent/tools/<family>.py``. A :class:`app.policy.Policy` carries a catalog (the
product's by default); a policy file (see :mod:`app.policy.config`) may override roles,
timeouts and confirm rules.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from app.vocab import LANGS, OBJECT_TYPES, ROLES, Confirm, Lang, Presentation, Risk, Undo

ALL_ROLES: frozenset[str] = frozenset(ROLES)
ALWAYS_INCLUDED = "show_capabilities"

# Which tools fit which page context (the contract's _CONTEXT_TOOL_AFFINITY, verbatim).
CONTEXT_TOOL_AFFINITY: dict[str, set[str]] = {
    "dashboard": {
        "search_dashboards",
        "get_health_summary",
        "deploy_dashboard",
        "run_llm_validation",
        "run_llm_documentation",
        "execute_migration",
        "create_branch",
        "commit_changes",
    },
    "dataset": {
        "superset_explore_database",
        "superset_format_sql",
        "superset_audit_permissions",
        "superset_execute_sql",
        "superset_create_dataset",
        "search_dashboards",
        "get_task_status",
        "list_environments",
    },
    "migration": {
        "execute_migration",
        "search_dashboards",
        "get_health_summary",
        "deploy_dashboard",
        "list_environments",
    },
}

# Admin-only tools. The contract lists the first seven; docs/contract.md also makes
# delete_dashboard and restore_backup admin-only; undo_change (it overwrites or deletes what
# is on a target now) is admin-only too.
TOOL_PERMISSIONS: dict[str, list[str]] = {
    "deploy_dashboard": ["admin"],
    "commit_changes": ["admin"],
    "create_branch": ["admin"],
    "run_backup": ["admin"],
    "execute_migration": ["admin"],
    "start_maintenance": ["admin"],
    "end_maintenance": ["admin"],
    "delete_dashboard": ["admin"],
    "restore_backup": ["admin"],
    "undo_change": ["admin"],
}


# The contract's writes that every role may run (it lists no roles for them). Any other
# tool that changes something and has no TOOL_PERMISSIONS row is admin-only until a
# policy file opens it: a new write tool is closed by default, not open to viewers.
OPEN_WRITES: frozenset[str] = frozenset({"superset_execute_sql", "superset_create_dataset"})
ADMIN_ONLY: tuple[str, ...] = ("admin",)


def roles_for(name: str, risk: Risk = "read") -> frozenset[str]:
    """Who may run ``name`` by default: its TOOL_PERMISSIONS row; else every built-in role
    for a read or one of the contract's OPEN_WRITES; else (a write or delete the tables do
    not name) admins only."""
    if name in TOOL_PERMISSIONS:
        return frozenset(TOOL_PERMISSIONS[name])
    if risk == "read" or name in OPEN_WRITES:
        return ALL_ROLES
    return frozenset(ADMIN_ONLY)


def affinity_for(name: str) -> frozenset[str]:
    """The page contexts ``name`` fits (CONTEXT_TOOL_AFFINITY, read by tool)."""
    return frozenset(t for t, names in CONTEXT_TOOL_AFFINITY.items() if name in names)


class _Blank(dict[str, Any]):
    """Template values: a missing or None value reads as an empty string."""

    def __missing__(self, key: str) -> str:
        return ""


_FORMATTER = string.Formatter()


def named(name: str, object_id: Any, lang: str) -> str:
    """An object as a person knows it: “Sales” (#42), «Sales» (#42) in Russian."""
    quoted = f"«{name}»" if lang == "ru" else f"“{name}”"
    return f"{quoted} (#{object_id})"


@dataclass(frozen=True)
class CardLine:
    """The confirmation card's one line, e.g. "Deploy dashboard 42 from dev to prod".

    ``en`` and ``ru`` are ``str.format`` templates filled with the call's arguments, plus
    ``env`` (the environment the call acts on, or "the selected environment") and whatever
    ``values(args, lang)`` adds (computed fragments such as "all dashboards"). A missing
    or None value reads as an empty string. ``names`` gives an id argument the name the
    person knows its object by: ``{"dashboard_id": "Sales"}`` makes ``{dashboard_id}``
    read “Sales” (#42) («Sales» (#42) in Russian).
    """

    en: str
    ru: str
    values: Callable[[Mapping[str, Any], Lang], Mapping[str, Any]] | None = None

    def render(
        self,
        args: Mapping[str, Any],
        env_id: str | None,
        lang: str = "en",
        names: Mapping[str, str] | None = None,
    ) -> str:
        chosen: Lang = "ru" if lang == "ru" else "en"
        env = env_id or ("выбранное окружение" if chosen == "ru" else "the selected environment")
        data = _Blank({k: v for k, v in args.items() if v is not None})
        data["env"] = env
        if self.values is not None:
            data.update(self.values(args, chosen))
        for key, name in (names or {}).items():
            if data.get(key) not in (None, ""):
                data[key] = named(name, data[key], chosen)
        template = self.ru if chosen == "ru" else self.en
        return " ".join(_FORMATTER.vformat(template, (), data).split())

    def fields(self) -> set[str]:
        """The names the templates use (tests check them against the args model)."""
        names = set()
        for template in (self.en, self.ru):
            names |= {f for _, f, _, _ in _FORMATTER.parse(template) if f}
        return names


@dataclass(frozen=True)
class Phrase:
    """One thing said in English and Russian: what a tool can do ("find dashboards"), or
    a request that asks for it ("Find dashboards about sales")."""

    en: str
    ru: str

    def said(self, lang: str) -> str:
        return self.ru if lang == "ru" else self.en


def _plain_line(name: str) -> CardLine:
    words = name.replace("_", " ").capitalize()
    return CardLine(en=f"{words} in {{env}}", ru=f"{name} в {{env}}")


#: an example that asks about the page's object
_ABOUT_THE_PAGE = re.compile(r"\bthis\s+(?:dashboard|dataset|migration)\b", re.IGNORECASE)


@dataclass(frozen=True)
class ToolSpec:
    """What policy knows about one tool: everything but its implementation.

    ``description`` is what the model reads (one line). ``risk`` is the tool's own risk;
    ``call_risk`` (when set) rates one call from its arguments (e.g. the parsed SQL of
    ``superset_execute_sql``) and ``call_reason`` says why on the card, as a sentence in
    the card's language (e.g. which function made it risky); ``call_details`` adds facts
    to the card's details. ``timeout_s`` None means the settings' default
    tool timeout (a ``long_task`` waits 600 s for its task unless it says otherwise).
    ``card`` renders the confirmation card's line. ``can`` (what the tool does, for a
    list of capabilities), ``example`` (a request that asks for it) and ``triggers``
    (more words that ask for it) are how a planner without a model recognises the tool;
    ``example_prompt`` is the example in English. ``presentation`` says how a result is
    shown; ``maintenance_exempt`` tools run during a maintenance window; ``idempotent``
    and ``open_world`` are MCP hints (read-only and destructive follow from ``risk``).
    ``undo`` says whether what a call changes can be undone (``undoable``: it gets an
    ``undo`` offer, ``app.agent.undo``) or not (``final``); None for a read. The
    confirmation card says it before the person confirms. Roles and affinity come from
    the contract's two tables (:func:`roles_for`, :func:`affinity_for`) when a family
    declares the spec.
    """

    name: str
    family: str
    description: str
    args_model: type[BaseModel]
    risk: Risk
    roles: frozenset[str]
    affinity: frozenset[str] = field(default_factory=frozenset)
    timeout_s: float | None = None
    confirm: Confirm = "auto"
    example_prompt: str = ""
    card: CardLine | None = None
    can: Phrase | None = None
    example: Phrase | None = None
    triggers: tuple[str, ...] = ()
    call_risk: Callable[[Mapping[str, Any]], Risk] | None = None
    call_details: Callable[[Mapping[str, Any]], dict[str, Any] | None] | None = None
    call_reason: Callable[[Mapping[str, Any], Lang], str | None] | None = None
    presentation: Presentation = "text"
    long_task: bool = False
    maintenance_exempt: bool = False
    idempotent: bool = False
    open_world: bool = True
    undo: Undo | None = None

    @property
    def example_needs_page(self) -> bool:
        """Whether the example asks about the page's object ("… this dashboard"): an
        alternative offered only on such a page."""
        return bool(_ABOUT_THE_PAGE.search(self.example_prompt))

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

    def describe(
        self,
        args: Mapping[str, Any],
        env_id: str | None,
        lang: str = "en",
        names: Mapping[str, str] | None = None,
    ) -> str:
        """One human line saying what the call will do, in ``lang`` (``names``: the names
        of the objects its id arguments name, see :class:`CardLine`)."""
        return (self.card or _plain_line(self.name)).render(args, env_id, lang, names)


__all__ = [
    "ALL_ROLES",
    "ALWAYS_INCLUDED",
    "CONTEXT_TOOL_AFFINITY",
    "LANGS",
    "OBJECT_TYPES",
    "ROLES",
    "TOOL_PERMISSIONS",
    "CardLine",
    "Phrase",
    "ToolSpec",
    "affinity_for",
    "roles_for",
]
