"""Reading a tool result as the model receives it (a ToolMessage's text).

The tool node JSON-dumps a tool's return value and, over the summarise limit, replaces
it by a structural summary (``app.agent.execution.summarise_response``):

* ``Found N items:\\n - {json}\\n … + M more.`` for a list;
* ``Result keys: a, b. Values: a=1, b=[25 items]...`` for an object, optionally followed by
  ``\\n<key>: Found N items: …`` for the list that holds most of it.

A call that did not run is ``REFUSED: {json}`` (:class:`app.facts.Refusal`: the guard
said no, the turn stopped a repeated call, or the person cancelled it on the card); a
call that failed is ``ERROR: <text>``.

:func:`read_result` turns any of these into a :class:`Result`: the outcome code (None on
success; a refusal's code; ``"error"`` for a failure), the refusal's facts, the parsed
data (a dict or list, partial for a summary), and the true length of each list that a
summary cut (``totals``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from app.facts import REFUSED_PREFIX, Refusal, read_refusal

ERROR = "error"  # the outcome code of a failed call
ERROR_PREFIX = "ERROR:"
_FOUND = re.compile(r"Found (\d+) items:")
_ITEM = re.compile(r"^ - (.*)$", re.MULTILINE)
_KEYS = re.compile(r"^Result keys: (.*?)\. Values: (.*?)(?:\.\.\.)?$", re.MULTILINE)
# a key starts at the start of its word (a search would try each letter of a long word)
_PAIR = re.compile(r"(?<!\w)(\w++)=(\[\d+ items\]|\{[^}]*+\}|.*?)(?=, \w++=|$)")
_LIST_HEAD = re.compile(r"^(\w+): Found (\d+) items:", re.MULTILINE)
_SHAPE = re.compile(r"\A(?:\[\d+ items\]|\{[^}]*\})\Z")
_COUNT = re.compile(r"\A\[(\d+) items\]\Z")
_FIELD = re.compile(r'"(\w+)":\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)')


@dataclass(frozen=True)
class Result:
    code: str | None  # None: the tool succeeded; a refusal's code; "error": it failed
    message: str  # the failure's text, or the whole text (a refusal's log sentence)
    data: Any = None  # dict | list | None (plain text)
    totals: dict[str, int] = field(default_factory=dict)  # list key ("" = top) -> length
    summarised: bool = False
    refusal: Refusal | None = None  # why the call did not run, as facts

    def items(self, key: str = "") -> list[Any]:
        """The items of the list under ``key`` ("" = the result itself), as far as known."""
        value: Any = None
        if isinstance(self.data, list):  # a bare list stands for any list the tool returns
            value = self.data
        elif key and isinstance(self.data, dict):
            value = self.data.get(key)
        return [v for v in value if v is not None] if isinstance(value, list) else []

    def total(self, key: str = "") -> int:
        """How many items the list under ``key`` really had (a summary shows only some)."""
        if isinstance(self.data, list):
            key = ""
        return self.totals.get(key, len(self.items(key)))

    def get(self, key: str, default: Any = None) -> Any:
        return self.data.get(key, default) if isinstance(self.data, dict) else default


def _item(text: str) -> Any:
    text = text.strip()
    try:
        return json.loads(text)
    except ValueError:
        pass
    fields = {}
    for key, raw in _FIELD.findall(text):
        try:
            fields[key] = json.loads(raw)
        except ValueError:
            continue
    return fields or text.rstrip(".")


def _scalar(raw: str) -> Any:
    raw = raw.strip()
    if _SHAPE.fullmatch(raw):
        return None  # only the shape is known
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _listing(text: str) -> tuple[list[Any], int] | None:
    found = _FOUND.search(text)
    if not found:
        return None
    return [_item(m.group(1)) for m in _ITEM.finditer(text[found.end() :])], int(found.group(1))


def _summary(text: str) -> Result | None:
    keys = _KEYS.search(text)
    if keys is None:
        listing = _listing(text) if text.startswith("Found ") else None
        if listing and listing[0]:
            return Result(None, text, listing[0], {"": listing[1]}, summarised=True)
        return None
    data: dict[str, Any] = {k.strip(): None for k in keys.group(1).split(",")}
    for key, raw in _PAIR.findall(keys.group(2)):
        data[key] = _scalar(raw)
    totals: dict[str, int] = {}
    for key, raw in _PAIR.findall(keys.group(2)):
        if m := _COUNT.fullmatch(raw.strip()):
            totals[key] = int(m.group(1))
    head = _LIST_HEAD.search(text, keys.end())
    if head and (listing := _listing(text[head.start() :])):
        data[head.group(1)], totals[head.group(1)] = listing
    return Result(None, text, data, totals, summarised=True)


def _unread_refusal(body: str) -> str:
    """What a refusal the planner cannot read (a newer code, say) says: its message."""
    try:
        data = json.loads(body)
    except ValueError:
        return body.strip()
    message = data.get("message") if isinstance(data, dict) else None
    return str(message) if message else body.strip()


def read_result(content: str) -> Result:
    """The outcome and data of one tool result (see the module docstring)."""
    text = content.strip()
    refusal = read_refusal(text)
    if refusal is not None:
        return Result(refusal.code, refusal.message, refusal=refusal)
    if text.startswith(ERROR_PREFIX):
        return Result(ERROR, text[len(ERROR_PREFIX) :].strip())
    if text.startswith(REFUSED_PREFIX.strip()):  # a refusal this planner cannot read
        return Result(ERROR, _unread_refusal(text[len(REFUSED_PREFIX.strip()) :]))
    try:
        return Result(None, text, json.loads(text))
    except ValueError:
        pass
    return _summary(text) or Result(None, text)
