"""Untrusted text made safe (pure; no I/O): for storage, and for markdown on screen.

* :func:`is_valid_unicode` / :func:`clean_text`: text the database, the password hash
  and the logs can encode — no lone surrogate, no NUL (a PostgreSQL text or JSONB value
  cannot hold ``\\x00``). ``clean_text`` replaces each with U+FFFD.
* :func:`inert` (issue 9 item 9): Superset-sourced text (dashboard descriptions,
  statuses, URLs, column names, error texts) rendered by markdown shows exactly as
  written: HTML characters become entities (no raw tags), markdown punctuation is
  backslash-escaped (no emphasis, no ``![image](…)``, no ``[link](…)``), and a URL is a
  link only when its host is one of ``allowed_hosts`` (the configured Superset hosts);
  any other URL stays plain, unclickable text.
* :func:`csv_cell` (issue 23 item 8): a CSV cell a spreadsheet will not run. A text
  starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula to
  Excel, LibreOffice and Google Sheets (``=HYPERLINK(…)``); OWASP's advice is to prefix
  it with a single quote, which the spreadsheet shows as text.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

REPLACEMENT = "\ufffd"
_BAD_CHARS = re.compile("[\x00\ud800-\udfff]")
_MD_INLINE = re.compile(r"([\\`*_\[\]])")  # emphasis, code, links and images
_MD_LINE_START = re.compile(r"^([ \t]*)([#=+-]|\d+(?=[.)]))", re.MULTILINE)  # blocks
_URL = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)
_TRAILING = ".,;:!?)]}'\""


def is_valid_unicode(text: str) -> bool:
    """True when ``text`` has no lone surrogate and no NUL."""
    return _BAD_CHARS.search(text) is None


def clean_text(text: str) -> str:
    """``text`` with every lone surrogate and NUL replaced by U+FFFD."""
    return _BAD_CHARS.sub(REPLACEMENT, text)


def host_of(url: str) -> str | None:
    """``host[:port]`` (lower case) of an http(s) URL, else None."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    if parts.username or parts.password:
        return None  # user:pass@host is a classic disguise
    return parts.netloc.lower()


def hosts_of(urls: Iterable[str | None]) -> frozenset[str]:
    """The allowed-host set of the configured environment URLs."""
    return frozenset(h for u in urls if u and (h := host_of(u)))


def link_allowed(url: str, allowed_hosts: Iterable[str]) -> bool:
    host = host_of(url)
    if host is None:
        return False
    allowed = {h.lower() for h in allowed_hosts}
    return host in allowed or host.split(":")[0] in allowed


def escape_markdown(text: str) -> str:
    """Text that markdown renders literally: entities for ``& < >``, a backslash before
        inline markdown punctuation (emphasis, code, links, images, table cells) and before
    block markers at a line start (headings, lists, rules), invalid characters replaced."""
    escaped = html.escape(clean_text(str(text)), quote=False)
    escaped = _MD_INLINE.sub(r"\\\1", escaped).replace("|", "&#124;")  # no table cells
    return _MD_LINE_START.sub(_escape_block_start, escaped)


def _escape_block_start(match: re.Match[str]) -> str:
    indent, mark = match.group(1), match.group(2)
    if mark[0].isdigit():  # "1." / "1)" would start an ordered list: escape the dot
        return f"{indent}{mark}\\"
    return f"{indent}\\{mark}"


def _url_markdown(url: str, allowed_hosts: Iterable[str]) -> str:
    if not link_allowed(url, allowed_hosts):
        return escape_markdown(url)
    target = url.replace("(", "%28").replace(")", "%29").replace(" ", "%20")
    return f"[{escape_markdown(url)}]({html.escape(target, quote=True)})"


def inert(text: object, allowed_hosts: Iterable[str] = ()) -> str:
    """Superset text as inert markdown (see the module docstring)."""
    source = clean_text("" if text is None else str(text))
    hosts = tuple(allowed_hosts)
    out: list[str] = []
    last = 0
    for match in _URL.finditer(source):
        url = match.group(0).rstrip(_TRAILING)
        out.append(escape_markdown(source[last : match.start()]))
        out.append(_url_markdown(url, hosts))
        last = match.start() + len(url)
    out.append(escape_markdown(source[last:]))
    return "".join(out)


def md_link(label: object, url: str | None, allowed_hosts: Iterable[str] = ()) -> str:
    """``[label](url)`` when ``url`` is on an allowed host, else the inert label."""
    text = escape_markdown("" if label is None else str(label))
    if url and link_allowed(url, allowed_hosts):
        target = url.replace("(", "%28").replace(")", "%29").replace(" ", "%20")
        return f"[{text}]({html.escape(target, quote=True)})"
    return text


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """``value`` for a CSV export: a text a spreadsheet would read as a formula gets a
    leading ``'``; numbers and other values are kept as they are."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value
