"""The agent's markdown as the chat renders it (pure; no UI).

NiceGUI renders markdown with python-markdown2, which — unlike CommonMark — reads a list
that follows a line of text without a blank line as part of that paragraph: "What can you
do?" came back as one 20-line paragraph. :func:`chat_markdown` therefore puts a blank line
before a list that is glued to a paragraph (outside code fences). The ways on an answer
offers are typed on its event (``MessageEvent.offers``), never read from its text.
"""

from __future__ import annotations

import re

_LIST_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d{1,9}[.)])\s+\S")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_TABLE_ROW = re.compile(r"^\s{0,3}\|")


def normalize_markdown(text: str) -> str:
    """``text`` with a blank line before every list or table that follows a paragraph
    line directly (python-markdown2 needs it); code fences are left as they are."""
    out: list[str] = []
    fenced = False
    for line in text.splitlines():
        if _FENCE.match(line):
            if not fenced and out and out[-1].strip():
                out.append("")
            fenced = not fenced
            out.append(line)
            continue
        if not fenced and out and out[-1].strip():
            previous = out[-1]
            starts_list = _LIST_ITEM.match(line) and not _LIST_ITEM.match(previous)
            continues_item = previous.startswith((" ", "\t")) or _LIST_ITEM.match(previous)
            starts_table = _TABLE_ROW.match(line) and not _TABLE_ROW.match(previous)
            if (starts_list and not continues_item) or starts_table:
                out.append("")
        out.append(line)
    return "\n".join(out)


def chat_markdown(text: str) -> str:
    """What a chat bubble renders for ``text``."""
    return normalize_markdown(text)
