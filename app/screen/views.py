"""The result views as the page knows them: components render these (and never import
``app.agent``); the StreamProcessor takes them off ``tool_end`` and out of a restored
conversation, the confirmation card's diff comes from the preflight ``details``."""

from __future__ import annotations

import logging

from pydantic import ValidationError

from app.views import (
    HEALTH_STATUSES,
    Cell,
    Column,
    DiffRow,
    DiffView,
    FactsView,
    HealthView,
    LinkedListView,
    TableView,
    TasksView,
    TextView,
    ToolView,
    cut_sentence,
    parse_view,
    preflight_view,
)

log = logging.getLogger(__name__)


def view_or_none(data: object) -> ToolView | None:
    """A stored view (a restored tool call); one this page cannot read is left out."""
    try:
        return parse_view(data)
    except ValidationError as exc:
        log.warning("ignoring a tool view the page cannot read: %s", exc.error_count())
        return None


__all__ = [
    "HEALTH_STATUSES",
    "Cell",
    "Column",
    "DiffRow",
    "DiffView",
    "FactsView",
    "HealthView",
    "LinkedListView",
    "TableView",
    "TasksView",
    "TextView",
    "ToolView",
    "cut_sentence",
    "parse_view",
    "preflight_view",
    "view_or_none",
]
