"""Markdown the chat renders, inert: the one place chat markdown is made safe.

Interim local equivalent of the security branch's shared helper (issue 9; to be replaced
by it once it lands on main): raw HTML in the text is shown as text (``<`` and ``>`` escaped
outside code, which markdown escapes itself), images are dropped to their alt text, and a
markdown link is kept only when its host is one of ``allowed_hosts`` (else its text stays,
unclickable). Code spans and fences are left untouched.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

from nicegui import ui

EXTRAS = ["fenced-code-blocks", "tables"]
_CODE = re.compile(r"(^\s{0,3}(```|~~~).*?^\s{0,3}\2[^\n]*$|(`+).+?\3)", re.MULTILINE | re.DOTALL)
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_REF_DEF = re.compile(r"^(\s{0,3})\[([^\]]+)\]:", re.MULTILINE)  # [id]: http://… (a link target)
_LINK = re.compile(r"\[([^\]]+)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def _link_allowed(url: str, hosts: frozenset[str]) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc) and parts.netloc in hosts


def _inert_prose(text: str, hosts: frozenset[str]) -> str:
    text = text.replace("<", "&lt;").replace(">", "&gt;")
    text = _IMAGE.sub(lambda m: m.group(1), text)
    text = _REF_DEF.sub(lambda m: f"{m.group(1)}\\[{m.group(2)}]:", text)
    return _LINK.sub(lambda m: m.group(0) if _link_allowed(m.group(2), hosts) else m.group(1), text)


def inert_markdown(text: str, allowed_hosts: Iterable[str] = ()) -> str:
    """``text`` with raw HTML, images and foreign links made inert (code untouched)."""
    hosts = frozenset(h.lower() for h in allowed_hosts)
    out, last = [], 0
    for match in _CODE.finditer(text):
        out.append(_inert_prose(text[last : match.start()], hosts))
        out.append(match.group(0))
        last = match.end()
    out.append(_inert_prose(text[last:], hosts))
    return "".join(out)


def safe_markdown(content: str = "", allowed_hosts: Iterable[str] = ()) -> ui.markdown:
    """A markdown element whose content is made inert whenever it is set."""
    hosts = tuple(allowed_hosts)
    element = ui.markdown(inert_markdown(content, hosts), extras=EXTRAS)
    element._ss_hosts = hosts  # type: ignore[attr-defined]
    return element


def bind_markdown(
    element: ui.markdown, obj: object, name: str, transform: Callable[[str], str] = str
) -> ui.markdown:
    """Bind ``element``'s content to ``obj.name`` (through ``transform``), made inert."""
    hosts = getattr(element, "_ss_hosts", ())
    return element.bind_content_from(
        obj, name, backward=lambda s: inert_markdown(transform(s or ""), hosts)
    )
