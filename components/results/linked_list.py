"""A linked list view: each object's title links to it in its Superset (new tab); its id,
owners and when it changed are quiet details. Titles are Superset text, shown as text."""

from __future__ import annotations

from nicegui import ui

from app.i18n import key_label, t
from app.screen.views import LinkedListView
from components.results.format import format_cell


def count_text(view: LinkedListView, lang: str) -> str:
    shown, total = len(view.items), max(view.total, len(view.items))
    if shown < total:
        return t("items_shown_of", lang, shown=shown, total=total)
    return t("items_found", lang, n=shown)


def title_link(title: str, url: str | None) -> ui.element:
    """A title: a link into Superset (new tab) when it has a URL, else plain text."""
    if url and url.startswith(("http://", "https://")):
        link = ui.link(title, url, new_tab=True).classes("font-medium text-blue-800 underline")
        return link.props('rel="noopener noreferrer"').mark("superset-link")
    return ui.label(title).classes("font-medium")


def linked_list_view(view: LinkedListView, lang: str) -> ui.element:
    with ui.column().classes("w-full gap-1") as box:
        ui.label(count_text(view, lang)).classes("text-sm text-gray-700").mark("result-count")
        if not view.items:
            ui.label(t("nothing_found", lang)).classes("text-sm text-gray-700")
        with ui.element("ul").classes("w-full linked-list").mark("linked-list"):
            for item in view.items:
                with ui.element("li").classes("py-0.5"):
                    with ui.row().classes("items-baseline gap-x-3 gap-y-0 wrap"):
                        title_link(item.title, item.url)
                        quiet = [f"#{item.id}"] if item.id is not None else []
                        quiet += [
                            f"{key_label(d.key, lang)}: {format_cell(d.value, lang)}"
                            for d in item.details
                        ]
                        if quiet:
                            ui.label(" · ".join(quiet)).classes("text-xs text-gray-700")
    return box
