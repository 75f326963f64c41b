"""Result views inside a tool card, one component per view kind (``app.screen.views``):
``result_view`` renders one, ``summary`` says it in a few words for the card's header."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import ui

from app.i18n import t
from app.screen.views import (
    DiffView,
    FactsView,
    HealthView,
    TableView,
    TasksView,
    ToolView,
    cut_sentence,
)
from components.results.diff import diff_view
from components.results.facts import facts_view
from components.results.health import health_view
from components.results.linked_list import linked_list_view
from components.results.table import table_view
from components.results.tasks import state_text, tasks_view
from components.results.text import text_view

RENDER: dict[str, Callable[[Any, str], ui.element]] = {
    "table": table_view,
    "linked_list": linked_list_view,
    "health": health_view,
    "facts": facts_view,
    "tasks": tasks_view,
    "diff": diff_view,
    "text": text_view,
}


def result_view(view: ToolView | None, lang: str) -> None:
    """Render ``view`` (nothing for None), and what the result caps left out of it."""
    if view is None:
        return
    RENDER[view.kind](view, lang)
    note = cut_sentence(view.cut, lang, table=isinstance(view, TableView))
    if note:
        ui.label(note).classes("text-sm text-amber-900").mark("result-cut")


def summary(view: ToolView | None, lang: str) -> str:
    """The result in a few words, for the card's one-line header (tables and lists say
    their count right below it, so the header does not repeat it)."""
    if isinstance(view, HealthView):
        verdict = t(f"verdict_{view.verdict}", lang) if view.verdict else ""
        failing = view.counts.get("failing", 0)
        return f"{verdict} · {failing} {t('health_failing', lang)}" if failing else verdict
    if isinstance(view, TasksView) and len(view.tasks) == 1:
        return state_text(view.tasks[0].status, lang)
    if isinstance(view, TasksView):
        return t("items_found", lang, n=len(view.tasks))
    if isinstance(view, DiffView):
        return " → ".join(e for e in (view.source_env, view.target_env) if e)
    if isinstance(view, FactsView) and view.facts:
        return str(view.facts[0].value)
    return ""
