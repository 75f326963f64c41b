"""A facts view: a few labelled values (what a write did), links where a fact has one."""

from __future__ import annotations

from nicegui import ui

from app.i18n import key_label
from app.screen.views import FactsView
from components.results.format import format_cell
from components.results.linked_list import title_link


def facts_view(view: FactsView, lang: str) -> ui.element:
    grid = ui.grid(columns="auto 1fr").classes("w-full gap-x-4 gap-y-0.5 text-sm")
    with grid.mark("result-facts"):
        for fact in view.facts:
            ui.label(key_label(fact.key, lang)).classes("text-gray-700")
            if fact.url:
                title_link(format_cell(fact.value, lang), fact.url)
            else:
                ui.label(format_cell(fact.value, lang)).classes("break-all")
    return grid
