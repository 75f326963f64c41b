"""What the planner knows of its tools, read from their declarations (the catalog's specs).

A tool's declaration (``@family.tool(...)`` in its family module) says what the tool can
do (``can``: "find dashboards" / «найти дашборды»), a request that asks for it
(``example``) and, optionally, more phrases that ask for it (``triggers``). The planner:

* lists ``can`` in its capabilities answer and in its questions ("To find dashboards I
  need …"), and offers ``example`` requests (one per family);
* routes a request that says any of those phrases to the tool when its own intent table
  (:mod:`app.agent.planner.intents`, hand-written for the contract's tools) has no strong
  row for it: that is how a newly declared tool is reachable without a hand-written rule;
* fills the arguments of a tool it has no extractor for by their names
  (:mod:`app.agent.planner.fill`) and asks for the required ones it cannot fill.

A phrase matches as whole words, case-insensitively, with any spacing or punctuation
between the words; a word ending in ``*`` matches any ending ("мо* рол*" matches
«моя роль», «мои роли»). :func:`app_known` is the product's catalog; a planner built
with another catalog (``OfflinePlanner(catalog=...)``) knows that one instead.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from functools import cache
from typing import Any

from app.agent.planner.text import Lang
from app.policy import ALWAYS_INCLUDED, TOOL_CATALOG, ToolSpec

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
    """The tools of one catalog as the planner knows them (see the module docstring)."""

    def __init__(self, catalog: Mapping[str, ToolSpec]) -> None:
        self.catalog = catalog
        self._heard = {name: _heard_by(spec) for name, spec in catalog.items()}

    @property
    def names(self) -> list[str]:
        return list(self.catalog)

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
            if name not in tools or name == ALWAYS_INCLUDED or spec.example is None:
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


@cache  # a memo of a constant (the declarations' catalog), not a part: nothing to reset
def app_known() -> Known:
    """The product's tools (``app.policy.TOOL_CATALOG``)."""
    return Known(TOOL_CATALOG)
