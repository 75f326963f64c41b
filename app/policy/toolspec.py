"""What a tool is, as policy reads it: :class:`ToolSpec`, its card line and its phrases.

The type is policy's (its rules are over a catalog of these); the specs are the tools':
a family declares each of its tools once (``app/tools/<family>/spec.py``, with
:class:`app.tools.declare.Family`), and :mod:`app.tools.catalog` joins them into the
catalog that policy, the doors and the planner read. Pure: no I/O, and nothing here names
a tool.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from app.vocab import Confirm, Lang, Presentation, Risk, Undo

#: What "the tool that …" does, for whoever needs it without its name: list what the agent
#: can do here, report a task's status, undo a change, bring a backup back.
Serves = Literal["capabilities", "task_status", "undo", "restore"]


#: a call's arguments, its environment, the names the person knows its id arguments' objects by
Args = Mapping[str, Any]
Env = str | None
Names = Mapping[str, str] | None


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

    def render(self, args: Args, env_id: Env, lang: str = "en", names: Names = None) -> str:
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
    """One tool as data: everything but its implementation.

    ``description`` is what the model reads (one line). ``risk`` is the tool's own risk;
    ``call_risk`` (when set) rates one call from its arguments (e.g. its parsed SQL) and
    ``call_reason`` says why on the card, as a sentence in the card's language (e.g. which
    function made it risky); ``call_details`` adds facts to the card's details.
    ``timeout_s`` None means the settings' default tool timeout (a ``long_task`` waits
    600 s for its task unless it says otherwise). ``card`` renders the confirmation card's
    line. ``can`` (what the tool does, for a list of capabilities), ``example`` (a request
    that asks for it) and ``triggers`` (more words that ask for it) are how a planner
    without a model recognises the tool; ``example_prompt`` is the example in English.
    ``presentation`` says how a result is shown; ``maintenance_exempt`` tools run during a
    maintenance window; ``idempotent`` and ``open_world`` are MCP hints (read-only and
    destructive follow from ``risk``). ``undo`` says whether what a call changes can be
    undone (``undoable``: it gets an ``undo`` offer, ``app.agent.undo``) or not
    (``final``); None for a read. The confirmation card says it before the person confirms.

    Who and where: ``roles`` may run it (the contract's ``TOOL_PERMISSIONS`` is their
    view, :mod:`app.policy.tables`), on the pages of its ``affinity``
    (``CONTEXT_TOOL_AFFINITY``); an ``always_included`` tool is offered on every page.
    What the core asks of it: ``serves`` (it is "the tool that …", :data:`Serves`),
    ``finds`` (the kind of object it looks up by name, e.g. ``dashboard``) and
    ``signs_in`` (False: it reaches Superset without signing in, so it needs no account).
    """

    name: str
    family: str
    description: str
    args_model: type[BaseModel]
    risk: Risk
    roles: frozenset[str]
    affinity: frozenset[str] = field(default_factory=frozenset)
    always_included: bool = False
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
    serves: Serves | None = None
    finds: str | None = None
    signs_in: bool = True

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

    def describe(self, args: Args, env_id: Env, lang: str = "en", names: Names = None) -> str:
        """One human line saying what the call will do, in ``lang`` (``names``: the names
        of the objects its id arguments name, see :class:`CardLine`)."""
        return (self.card or _plain_line(self.name)).render(args, env_id, lang, names)


def serving(catalog: Mapping[str, ToolSpec], need: Serves) -> ToolSpec | None:
    """The spec in ``catalog`` that serves ``need`` (the first, in catalog order)."""
    return next((s for s in catalog.values() if s.serves == need), None)


def finder(catalog: Mapping[str, ToolSpec], kind: str) -> ToolSpec | None:
    """The spec in ``catalog`` that looks objects of ``kind`` up by name."""
    return next((s for s in catalog.values() if s.finds == kind), None)


def served_by(catalog: Mapping[str, ToolSpec], need: Serves) -> str:
    """The name of the tool of ``catalog`` that serves ``need`` (a LookupError if none:
    a text that names a tool by what it does needs that tool)."""
    return _name(serving(catalog, need), f"no tool serves {need!r}")


def finder_of(catalog: Mapping[str, ToolSpec], kind: str) -> str:
    """The name of the tool of ``catalog`` that looks objects of ``kind`` up (a
    LookupError if none)."""
    return _name(finder(catalog, kind), f"no tool finds a {kind}")


def _name(spec: ToolSpec | None, missing: str) -> str:
    if spec is None:
        raise LookupError(missing)
    return spec.name
