"""A text view: documentation as markdown, formatted SQL as a code block, else plain."""

from __future__ import annotations

from nicegui import ui

from app.screen.markdown_text import normalize_markdown
from app.screen.views import TextView
from components.markdown import safe_markdown


def text_view(view: TextView, lang: str) -> ui.element:
    if view.format == "code":
        return ui.code(view.text, language=view.language or "text").classes("w-full text-xs")
    if view.format == "markdown":
        return safe_markdown(normalize_markdown(view.text)).classes("w-full text-sm")
    return ui.label(view.text).classes("w-full text-sm whitespace-pre-wrap")
