"""The intent table: which tool an operator's request asks for, in English and Russian.

The rows are the families' (each tool's entry in ``app/planner/tools/<family>.py``:
:class:`~app.planner.knowledge.Row`), joined into one table ordered by their ``order``,
from the most specific to the most generic; a tool may have more than one row.

Choosing (:func:`choose_tool`):
* the first row whose strong pattern matches wins, bound or not: that is what the
  person asked for, and if the tool is not allowed the server's guard says why;
* otherwise, a tool whose declaration's phrases the request says (``heard``: its
  ``can``, its example, its triggers; see :mod:`app.planner.known`) wins, the
  first bound one first: a newly declared tool needs no row;
* otherwise, among the rows whose weak pattern matches, the first bound tool wins,
  else the first one;
* nothing matches, or the first strong row is a ``no_tool`` row (a request no tool
  serves, such as deleting a backup) → ``None`` (the planner then lists what it can do).

Patterns run on the lower-cased request with its SQL statement replaced by the word
``sqlquery`` (so "delete from t" is SQL, not a dashboard deletion).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from app.planner.tools import KNOWLEDGE

NO_TOOL = ""  # a row for a request no tool serves (the planner then says what it can do)


@dataclass(frozen=True)
class Intent:
    tool: str
    strong: re.Pattern[str]
    weak: re.Pattern[str] | None = None


def _first(item: tuple[int, str, object]) -> int:
    return item[0]


def _table() -> tuple[Intent, ...]:
    rows = sorted(((r.order, k.name, r) for k in KNOWLEDGE.values() for r in k.rows), key=_first)
    orders = [order for order, _, _ in rows]
    if len(set(orders)) != len(orders):
        raise ValueError(f"two intent rows share an order: {orders}")
    return tuple(Intent(NO_TOOL if r.no_tool else name, r.strong, r.weak) for _, name, r in rows)


INTENTS: tuple[Intent, ...] = _table()


def matching(text: str) -> tuple[list[str], list[str]]:
    """The tools whose strong and weak patterns match, each in table order."""
    strong = [i.tool for i in INTENTS if i.strong.search(text)]
    weak = [i.tool for i in INTENTS if i.weak is not None and i.weak.search(text)]
    return strong, weak


def _first_bound(tools: Sequence[str], bound: Collection[str] | None) -> str:
    if bound is not None:
        for tool in tools:
            if tool in bound:
                return tool
    return tools[0]


def choose_tool(text: str, bound: Collection[str] | None, heard: Sequence[str] = ()) -> str | None:
    """The tool a request asks for (see the module docstring for the rule); ``heard``:
    the tools whose declared phrases the request says."""
    strong, weak = matching(text)
    if strong:
        return strong[0] or None
    if heard:
        return _first_bound(heard, bound)
    return _first_bound(weak, bound) if weak else None
