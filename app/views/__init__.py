"""Tool results as typed views (docs/contract.md, decision 9): the models and their builders.

* :mod:`~app.views.models` — :data:`ToolView`, a discriminated union (``kind``) of
  small pydantic models: table, linked_list, health, facts, tasks, diff, text.
* :func:`build_view` — the tool node's step: a declaration's ``presentation`` + the raw
  result + the environment's Superset base URL → a view (or None).
* :func:`preflight_view` — a migration/deploy preflight (confirmation ``details``) as a
  diff, for the confirmation card.
* :func:`cap_view` — a view within the result caps (``app.caps``), what was left out in
  its ``cut``; :func:`cut_sentence` says that in words.

A leaf for the page: besides pydantic and the standard library it imports only the
caps (``app.caps``) and the catalog (``app.i18n``).
"""

from pydantic import TypeAdapter

from app.views.build import build_view
from app.views.build_ops import preflight_view
from app.views.capped import cap_view, cut_sentence
from app.views.models import (
    HEALTH_STATUSES,
    Cell,
    Column,
    Cut,
    Detail,
    DiffRow,
    DiffView,
    Fact,
    FactsView,
    HealthProblem,
    HealthView,
    LinkedItem,
    LinkedListView,
    TableView,
    TaskRow,
    TasksView,
    TextView,
    ToolView,
)

VIEW_ADAPTER: TypeAdapter[ToolView] = TypeAdapter(ToolView)


def parse_view(data: object) -> ToolView | None:
    """A view from its JSON form (a restored conversation, an SSE frame); None for None."""
    return None if data is None else VIEW_ADAPTER.validate_python(data)


__all__ = [
    "HEALTH_STATUSES",
    "VIEW_ADAPTER",
    "Cell",
    "Column",
    "Cut",
    "Detail",
    "DiffRow",
    "DiffView",
    "Fact",
    "FactsView",
    "HealthProblem",
    "HealthView",
    "LinkedItem",
    "LinkedListView",
    "TableView",
    "TaskRow",
    "TasksView",
    "TextView",
    "ToolView",
    "build_view",
    "cap_view",
    "cut_sentence",
    "parse_view",
    "preflight_view",
]
