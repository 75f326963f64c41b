"""What the planner knows of its tools: the catalog it is handed, and the bound tools.

A model knows the tools it is given, nothing else: the planner imports no tool. The
composition root hands it the tools' catalog (``OfflinePlanner(catalog=...)``, name ->
``app.policy.ToolSpec``: the rules' catalog in the product), and the core binds the tools
of each call (``bind_tools``).

A tool's declaration says what the tool can do (``can``: "find dashboards" / «найти
дашборды»), a request that asks for it (``example``) and, optionally, more phrases that
ask for it (``triggers``). The planner:

* lists ``can`` in its capabilities answer and in its questions ("To find dashboards I
  need …"), and offers ``example`` requests (one per family);
* routes a request that says any of those phrases to the tool when its own intent table
  (:mod:`app.planner.intents`, the rows of the tools' entries in
  ``app/planner/tools/``) has no strong row for it: that is how a newly declared tool is
  reachable without a hand-written rule;
* fills the arguments of a tool it has no reader for by their names
  (:mod:`app.planner.readers`) and asks for the required ones it cannot fill.

**Without a catalog** (``OfflinePlanner()``, or a bound tool the catalog does not
declare) a tool is known **by name only**: the intent table and the hand-written argument
readers still route the contract's tools, a tool is named by its name where ``can``
would say what it does, no example is offered, no declared phrase routes to it, and no
argument is filled by name.

A phrase matches as whole words, case-insensitively, with any spacing or punctuation
between the words; a word ending in ``*`` matches any ending ("мо* рол*" matches
«моя роль», «мои роли»).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from app.planner.text import Lang
from app.planner.tools import knowledge
from app.policy import ToolSpec

_EDGE = ".,;:!?«»\"'()"


def phrase_pattern(phrase: str) -> str:
    """The regex of one phrase (see the module docstring)."""
    words = [w.strip(_EDGE) for w in phrase.lower().split()]
    parts = [re.escape(w[:-1]) + r"\w*" if w.endswith("*") else re.escape(w) for w in words if w]
    return r"(?<!\w)" + r"\W+".join(parts) + r"(?!\w)" if parts else ""


def _heard_by(spec: ToolSpec) -> re.Pattern[str] | None:
    phrases = [*spec.triggers]
    for pair in (spec.can, spec.example):
        if pair is not None:
            phrases += [pair.en, pair.ru]
    alternatives = [p for p in map(phrase_pattern, phrases) if p]
    return re.compile("|".join(alternatives), re.IGNORECASE) if alternatives else None


class Known:
    """The tools of one catalog as the planner knows them (see the module docstring);
    no catalog: the bound tools by name only."""

    def __init__(self, catalog: Mapping[str, ToolSpec] | None = None) -> None:
        self.catalog: Mapping[str, ToolSpec] = catalog or {}
        self._heard = {name: _heard_by(spec) for name, spec in self.catalog.items()}

    def tools(self, among: Collection[str] | None) -> list[str]:
        """The tools to speak of: the catalog's, in its order, that are ``among`` (all
        when None), then those of ``among`` the catalog does not declare (by name)."""
        if among is None:
            return list(self.catalog)
        return [n for n in self.catalog if n in among] + [n for n in among if n not in self.catalog]

    def can(self, tool: str, lang: Lang) -> str:
        """What ``tool`` does, as a capabilities list says it (its name when unknown)."""
        spec = self.catalog.get(tool)
        return spec.can.said(lang) if spec is not None and spec.can is not None else tool

    def examples(self, tools: Collection[str], lang: Lang) -> list[str]:
        """One example request per family, for ``tools`` (catalog order); the
        always-included capabilities tool is the answer itself and gives none."""
        seen: set[str] = set()
        found = []
        for name, spec in self.catalog.items():
            if name not in tools or knowledge(name).capabilities or spec.example is None:
                continue
            if spec.family not in seen:
                seen.add(spec.family)
                found.append(spec.example.said(lang))
        return found

    def heard(self, text: str) -> list[str]:
        """The tools whose declared phrases ``text`` says, in catalog order."""
        return [name for name, pattern in self._heard.items() if pattern and pattern.search(text)]

    def fields(self, tool: str) -> Mapping[str, Any]:
        """The argument fields of ``tool`` (name → pydantic FieldInfo); none when unknown."""
        spec = self.catalog.get(tool)
        return spec.args_model.model_fields if spec is not None else {}

    def required(self, tool: str) -> list[str]:
        return [name for name, info in self.fields(tool).items() if info.is_required()]
