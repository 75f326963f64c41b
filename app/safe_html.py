"""An allow-list re-serializer for the HTML that markdown produces (pure; stdlib only).

The chat renders markdown written by the model and by the planner, which can quote
Superset text. :func:`sanitize_html` is the chat bubble's server-side sanitizer: it keeps
the tags markdown itself emits (paragraphs, emphasis, code, lists, tables, headings,
quotes, code highlighting spans), drops every attribute except ``class`` (a plain token
list) and table alignment, keeps a link only when its ``href`` is an http(s) URL on an
allowed host (else just its text), removes images, iframes, scripts and styles entirely,
and turns any other tag into nothing (its text stays, escaped). So raw HTML in a message
never reaches the browser as HTML.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from html.parser import HTMLParser

from app.text import link_allowed

ALLOWED_TAGS = frozenset(
    {
        "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "em", "strong", "b", "i",
        "code", "pre", "blockquote", "ul", "ol", "li", "table", "thead", "tbody", "tr",
        "th", "td", "del", "s", "sup", "sub", "div", "span", "a",
    }
)  # fmt: skip
VOID_TAGS = frozenset({"br", "hr"})
DROPPED_WITH_CONTENT = frozenset(
    {"script", "style", "iframe", "object", "embed", "svg", "math", "template", "noscript"}
)
_CLASS = re.compile(r"^[A-Za-z0-9 _-]{0,200}$")
_ALIGN = frozenset({"left", "right", "center"})


class _Sanitizer(HTMLParser):
    def __init__(self, allowed_hosts: Iterable[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.hosts = tuple(allowed_hosts)
        self.out: list[str] = []
        self.open: list[str] = []  # allowed tags currently open (closing order)
        self.skip_depth = 0

    def _attrs(self, tag: str, attrs: list[tuple[str, str | None]]) -> str | None:
        kept: list[str] = []
        for name, value in attrs:
            value = value or ""
            if name == "class" and _CLASS.match(value):
                kept.append(f' class="{html.escape(value)}"')
            elif name == "align" and tag in ("th", "td") and value in _ALIGN:
                kept.append(f' align="{value}"')
            elif name == "href" and tag == "a":
                if not link_allowed(value, self.hosts):
                    return None  # not a permitted link: the <a> is dropped, text kept
                kept.append(f' href="{html.escape(value, quote=True)}" rel="noopener noreferrer"')
        if tag == "a" and not any(k.startswith(" href=") for k in kept):
            return None
        return "".join(kept)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in DROPPED_WITH_CONTENT:
            self.skip_depth += 1
            return
        if self.skip_depth or tag not in ALLOWED_TAGS:
            return
        kept = self._attrs(tag, attrs)
        if kept is None:
            return
        self.out.append(f"<{tag}{kept}>")
        if tag not in VOID_TAGS:
            self.open.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID_TAGS and not self.skip_depth:
            self.out.append(f"<{tag}>")

    def handle_endtag(self, tag: str) -> None:
        if tag in DROPPED_WITH_CONTENT:
            self.skip_depth = max(0, self.skip_depth - 1)
            return
        if self.skip_depth or tag not in self.open:
            return
        while self.open:  # close everything opened inside it, then it
            inner = self.open.pop()
            self.out.append(f"</{inner}>")
            if inner == tag:
                break

    def handle_data(self, data: str) -> None:
        if not self.skip_depth:
            self.out.append(html.escape(data, quote=False))

    def result(self) -> str:
        self.close()
        return "".join(self.out) + "".join(f"</{t}>" for t in reversed(self.open))


def sanitize_html(markup: str, allowed_hosts: Iterable[str] = ()) -> str:
    """``markup`` reduced to the allow-list (see the module docstring)."""
    parser = _Sanitizer(allowed_hosts)
    parser.feed(markup)
    return parser.result()
