"""Markdown the chat renders, inert: the one place a chat markdown element is made.

Two steps. Raw HTML in the text is shown as text (``<``/``>`` escaped outside code spans
and fences, which markdown escapes itself): raw HTML is off. The HTML markdown produces
then goes through the shared sanitizer (``app.safe_html.sanitize_html``: text from Superset
is never markup): only markdown's own tags, no images, links only to the configured
Superset hosts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial

from nicegui import ui

from app.safe_html import sanitize_html
from components.markdown_code import code_spans

# "code-friendly": an underscore is never emphasis (``*`` and ``**`` still are). An
# operator's chat is full of snake_case (tools, tables, columns, SQL): markdown2 otherwise
# renders "order_items_daily" as "order<em>items</em>daily".
EXTRAS = ["fenced-code-blocks", "tables", "code-friendly"]


def without_raw_html(text: str) -> str:
    """``text`` with ``<`` and ``>`` outside code written as entities (shown, not parsed)."""
    out, last = [], 0
    for start, end in code_spans(text):  # fences and code spans, in linear time
        out.append(text[last:start].replace("<", "&lt;").replace(">", "&gt;"))
        out.append(text[start:end])
        last = end
    out.append(text[last:].replace("<", "&lt;").replace(">", "&gt;"))
    return "".join(out)


def safe_markdown(content: str = "", allowed_hosts: Iterable[str] = ()) -> ui.markdown:
    """A markdown element: raw HTML off, its HTML sanitized (links only to ``allowed_hosts``)."""
    sanitize = partial(sanitize_html, allowed_hosts=tuple(allowed_hosts))
    return ui.markdown(without_raw_html(content), extras=EXTRAS, sanitize=sanitize)


def bind_markdown(
    element: ui.markdown, obj: object, name: str, transform: Callable[[str], str] = str
) -> ui.markdown:
    """Bind ``element``'s content to ``obj.name`` (through ``transform``), raw HTML off."""
    return element.bind_content_from(
        obj, name, backward=lambda s: without_raw_html(transform(s or ""))
    )
