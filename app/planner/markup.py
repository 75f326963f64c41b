"""How the planner's answers mark things up, in one place.

* Superset-sourced text (titles, names, error details) is shown as text, never as
  markdown or HTML: :func:`md_escape` is the product's :func:`app.text.inert` (HTML
  characters as entities, markdown punctuation escaped, no links or images).
* :func:`code_span` and :func:`md_unescape` serve ``app/offers.py`` (the markdown offers
  the page still parses) until the core's typed offers replace it; the planner writes no
  offer.
* Names are quoted typographically for the language (:func:`quote`).
"""

from __future__ import annotations

import html
import re

from app.text import inert
from app.vocab import Lang

SHORT_ID = 8


def md_escape(text: object) -> str:
    """Superset data as inert markdown text, for use inside a sentence: emphasis, links,
    html, headings and tables cannot be formed from it; newlines become spaces."""
    return inert(" ".join(str(text).split()))


def md_unescape(text: str) -> str:
    """The text :func:`md_escape` was given (an offer's label, read back)."""
    return html.unescape(re.sub(r"\\(.)", r"\1", text))


def code_span(text: str) -> str:
    """``text`` as one markdown code span (longer fences when it holds backticks)."""
    flat = " ".join(text.split())
    longest = max((len(run) for run in re.findall(r"`+", flat)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{fence}{pad}{flat}{pad}{fence}"


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
