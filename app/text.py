"""Untrusted text made safe (pure; no I/O): for storage, and for markdown on screen.

* :func:`is_valid_unicode` / :func:`clean_text`: text the database, the password hash
  and the logs can encode — no lone surrogate, no NUL (a PostgreSQL text or JSONB value
  cannot hold ``\\x00``). ``clean_text`` replaces each with U+FFFD.
* :func:`one_line`: a name from elsewhere (a Superset title in a link, a tool's result)
  as one line of plain text: controls, line breaks and format characters (zero-width,
  bidi overrides) out, spaces collapsed, cut to a length.
* :func:`inert` (Superset's text is data, never markup): Superset-sourced text (dashboard
  descriptions, statuses, URLs, column names, error texts) rendered by markdown shows
  exactly as written: HTML characters become entities (no raw tags), markdown punctuation
  is backslash-escaped (no emphasis, no ``![image](…)``, no ``[link](…)``), and a URL is a
  link only when its host is one of ``allowed_hosts`` (the configured Superset hosts); any
  other URL stays plain, unclickable text.
* :func:`csv_cell` (a downloaded CSV must not run code): a CSV cell a spreadsheet will not
  run. A text starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a
  formula to Excel, LibreOffice and Google Sheets (``=HYPERLINK(…)``); OWASP's advice is to
  prefix it with a single quote, which the spreadsheet shows as text.
* :func:`control_character`: where a text holds a control character a terminal would
  run (what git history and branch names must not keep).
* :func:`redact` / :func:`cut`: the one redaction rule, shared by the audit log and the
  reasoning log: secret-looking keys become ``"***"``, long strings are cut, and every
  text (keys and values) has NUL bytes and lone surrogates replaced by U+FFFD (PostgreSQL
  could not store them).

A leaf: it knows no part of the product.
"""

from __future__ import annotations

import functools
import html
import math
import re
import unicodedata
import uuid
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from enum import Enum
from pathlib import PurePath
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel

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


def control_character(text: str, allowed: str = "") -> str | None:
    """Where ``text`` holds its first control character (C0, DEL or C1, Unicode's ``Cc``)
    that is not in ``allowed``: ``"U+001B at character 5"``; None when it holds none. A
    terminal runs these (ESC sequences, OSC-8 links, BEL) when it shows the text."""
    for i, ch in enumerate(text):
        code = ord(ch)
        if (code < 0x20 or 0x7F <= code < 0xA0) and ch not in allowed:
            return f"U+{code:04X} at character {i + 1}"
    return None


_BREAKS = frozenset({"Cc", "Zl", "Zp"})  # a space instead
_DROPPED = frozenset({"Cf", "Cs"})  # removed


def one_line(text: object, limit: int | None = None) -> str:
    """``text`` as one line of plain text (see the module docstring), at most ``limit``
    characters."""
    out = []
    for ch in str(text):
        category = unicodedata.category(ch)
        if category in _DROPPED:
            continue
        out.append(" " if category in _BREAKS else ch)
    flat = " ".join("".join(out).split())
    return flat if limit is None else flat[:limit].rstrip()


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


# ---- the one redaction rule (the audit log, the reasoning log) ---------------------
SECRET_KEY_PARTS = (
    "password",
    "passwd",
    "secret",
    "token",
    "api_key",
    "apikey",
    "authorization",
    "cookie",
    "credential",
    "private_key",
)
REDACTED = "***"
MAX_STRING = 2000
MAX_DEPTH = 12
_REMEMBERED_KEY = 64  # the longest key whose secret verdict is remembered


def is_secret_key(key: object) -> bool:
    """Whether a key names a secret. A short text key's answer is remembered (the same few
    keys come back in every row); a long or odd key is checked each time, so a flood of
    large keys cannot grow the memory."""
    if type(key) is str and len(key) <= _REMEMBERED_KEY:
        return _is_secret_text(key)
    return _names_secret(str(key))


@functools.lru_cache(maxsize=4096)
def _is_secret_text(key: str) -> bool:
    return _names_secret(key)


def _names_secret(key: str) -> bool:
    k = key.lower().replace("-", "_")
    return any(part in k for part in SECRET_KEY_PARTS)


def cut(text: str) -> str:
    """Storable text: NUL and lone surrogates replaced (PostgreSQL refuses both, and one
    bad value would fail the whole batch), then cut to ``MAX_STRING``."""
    text = clean_text(text)
    if len(text) <= MAX_STRING:
        return text
    return text[: MAX_STRING - 1] + "…"


def redact(value: Any, _depth: int = 0) -> Any:
    """A JSON-safe copy of ``value`` with secret keys masked and long strings cut."""
    if _depth > MAX_DEPTH:
        return "…"
    kind = type(value)  # the common exact types first: no ABC checks for them
    if kind is str:
        return cut(value)
    if value is None or kind is bool or kind is int:
        return value
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json")
    if isinstance(value, Mapping):
        return {
            cut(str(k)): REDACTED if is_secret_key(k) else redact(v, _depth + 1)
            for k, v in value.items()
        }
    if isinstance(value, list | tuple | set | frozenset):
        return [redact(v, _depth + 1) for v in value]
    if isinstance(value, str):
        return cut(value)
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # NaN / Infinity are not JSON (PostgreSQL's JSONB refuses them)
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, Enum):
        return redact(value.value, _depth + 1)
    if isinstance(value, uuid.UUID | PurePath):
        return str(value)
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    return cut(repr(value))
