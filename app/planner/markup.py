"""How the planner's answers mark things up, in one place.

* Superset-sourced text (titles, names, error details) is shown as text, never as
  markdown or HTML: :func:`md_escape` is the product's :func:`app.text.inert` (HTML
  characters as entities, markdown punctuation escaped, no links or images).
* Names are quoted typographically for the language (:func:`quote`).
* A code block is fenced longer than any run of backquotes inside it (:func:`fenced`).
"""

from __future__ import annotations

import re

from app.text import inert
from app.vocab import Lang

SHORT_ID = 8
_BACKTICKS = re.compile(r"`+")


def md_escape(text: object) -> str:
    """Superset data as inert markdown text, for use inside a sentence: emphasis, links,
    html, headings and tables cannot be formed from it; newlines become spaces."""
    return inert(" ".join(str(text).split()))


def quote(name: object, lang: Lang) -> str:
    """An escaped name in the language's quotes: “Sales demo” / «Sales demo»."""
    text = md_escape(name)
    return f"«{text}»" if lang == "ru" else f"“{text}”"


def short_id(value: object) -> str:
    """The first characters of a long id, as people read and type it ("abf01234…")."""
    text = str(value)
    return text if len(text) <= SHORT_ID + 2 else text[:SHORT_ID] + "…"


def id_prefix(value: object) -> str:
    """What a person types to refer to a long id: its first characters."""
    return str(value)[:SHORT_ID]


def fenced(code: str, info: str = "") -> str:
    """``code`` as a fenced block, its fence longer than any run of backquotes in it."""
    longest = max((len(run) for run in _BACKTICKS.findall(code)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{code}\n{fence}"
