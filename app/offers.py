"""Requests the planner offers in an answer, in a form a page can turn into buttons.

Two kinds, both plain markdown that reads well without any special rendering:

* **Choices** — when a name matches several objects, the question is followed by a
  markdown list (after a blank line); each item is the candidate's label, a colon, and
  the request that picks it, in a code span::

      Several dashboards match "Sales" in dev. Which one do you mean?

      - “Sales demo” (#7): `check the health of dashboard 7 in dev`
      - “Sales demo old” (#9): `check the health of dashboard 9 in dev`

* **Continue without this page's context** — when the page's context filters a tool
  out, the answer ends with a paragraph: the label (English or Russian, see
  :data:`CONTINUE_LABEL`), a colon, and the request with every object spelled out::

      Continue without this page's context: `delete dashboard 42 in prod`
      Продолжить без контекста страницы: `удали дашборд 42 на prod`

A page offers each choice as a button that sends its request, and the "continue" line as
a button that clears the page's context (and the pill) and sends its request.
:func:`parse_offers` reads both back from an answer's text. Labels are markdown-escaped
Superset text; ``Choice.label`` is returned unescaped (plain text for a button).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from app.planner.markup import code_span, md_unescape
from app.vocab import Lang

CONTINUE_LABEL: dict[Lang, str] = {
    "en": "Continue without this page's context",
    "ru": "Продолжить без контекста страницы",
}
_SPAN = r"(?P<fence>`+) ?(?P<request>.+?) ?(?P=fence)"
_CHOICE = re.compile(rf"^- (?P<label>.+?): {_SPAN}\s*$", re.MULTILINE)
_CONTINUE = re.compile(
    rf"^(?:{'|'.join(re.escape(v) for v in CONTINUE_LABEL.values())}): {_SPAN}\s*$",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Choice:
    label: str  # plain text (unescaped)
    request: str  # what to send when the choice is picked


@dataclass(frozen=True)
class Offers:
    choices: list[Choice] = field(default_factory=list)
    without_context: str | None = None  # the request to send after clearing the context


def choice_line(label_md: str, request: str) -> str:
    """One candidate: ``- {label}: `{request}` `` (``label_md`` is already escaped)."""
    return f"- {label_md}: {code_span(request)}"


def choices_block(choices: list[tuple[str, str]]) -> str:
    """The candidates as a markdown list, preceded by a blank line."""
    return "\n\n" + "\n".join(choice_line(label, request) for label, request in choices)


def continue_line(request: str, lang: Lang) -> str:
    """The "continue without this page's context" paragraph (preceded by a blank line)."""
    return f"\n\n{CONTINUE_LABEL[lang]}: {code_span(request)}"


def parse_offers(text: str) -> Offers:
    """The choices and the "continue without context" request of an answer, if any."""
    choices = [
        Choice(md_unescape(m.group("label")), m.group("request")) for m in _CHOICE.finditer(text)
    ]
    cont = _CONTINUE.search(text)
    return Offers(choices, cont.group("request") if cont else None)
