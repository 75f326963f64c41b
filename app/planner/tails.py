"""Phrases read to the end of a request: "because …", "message: …", "map a -> b".

Such a pattern ends with :data:`TAIL`, "blanks, then the rest of the request on one
line". A plain search for it would try every keyword of the request, and a keyword on an
earlier line scans to the end of its line before it fails: many keywords on a long line
that is not the last would make the search quadratic. A match can only start where the
rest of the request is blanks and one last line, so :func:`tail_search` starts the
search there (:func:`tail_start`): every attempt before the last line is within
``reach`` characters, and the first keyword on the last line matches.

Every tail pattern is made by :func:`tail_pattern`, which lists it in :data:`PATTERNS`
(the linear-time test reads each as :func:`tail_search` does).
"""

from __future__ import annotations

import re

# blanks, then the rest of the line as group 1; when only blanks follow the keyword, the
# last blank before the end as group 2 (what "\s*(.+)$" takes after backtracking)
TAIL = r"(?:\s*+(.+)|\s*([^\S\n]))$"
REACH = 64  # characters a keyword and its own blanks take before the last line's blanks
PATTERNS: list[re.Pattern[str]] = []


def tail_pattern(keywords: str, flags: int = 0) -> re.Pattern[str]:
    """``keywords`` (a regex) followed by :data:`TAIL`, listed in :data:`PATTERNS`."""
    pattern = re.compile(rf"(?:{keywords}){TAIL}", flags)
    PATTERNS.append(pattern)
    return pattern


def tail_start(text: str, reach: int = REACH) -> int:
    """Where a match reaching the end of ``text`` can start: ``reach`` characters before
    the blanks that lead into the text's last line (a final newline is no line)."""
    end = len(text) - 1 if text.endswith("\n") else len(text)
    line = text.rfind("\n", 0, end) + 1
    while line > 0 and text[line - 1].isspace():
        line -= 1
    return max(0, line - reach)


def tail_search(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    """``pattern.search(text)`` for a tail pattern, in linear time."""
    return pattern.search(text, tail_start(text))


def tail_value(match: re.Match[str]) -> str:
    """The text a tail pattern took after its keyword."""
    return next(g for g in match.groups() if g is not None)
