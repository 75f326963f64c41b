"""Tool results as typed views (docs/contract.md, decision 9): the models and their builders.

* :mod:`~app.views.models` — :data:`ToolView`, a discriminated union (``kind``) of
  small pydantic models: table, linked_list, health, facts, tasks, diff, text.
* :func:`build_view` — the tool node's step: the tool's own builder (its family's
  ``view.py``), else the generic builder of its spec's ``presentation``, on the raw
  result and the environment's Superset base URL → a view (or None). The generic
  builders (:func:`facts`, :func:`migration`, tables and links of :mod:`.cells`) are what
  a family's builders are made of; no builder here knows a tool.
* :func:`preflight_view` — a migration/deploy preflight (confirmation ``details``) as a
  diff, for the confirmation card.
* :func:`cap_view` — a view within the result caps (``app.caps``), what was left out in
  its ``cut``; :func:`cut_sentence` says that in words.

A leaf for the page: besides pydantic and the standard library it imports only the
caps (``app.caps``) and the catalog (``app.i18n``).
"""

from pydantic import TypeAdapter

from app.views.build import BY_KIND, Builder, build_view, facts
from app.views.capped import cap_view, cut_sentence
from app.views.cells import Links, cell, dict_table, numeric, said_in_words, without_paths
from app.views.diffs import migration, preflight_view
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
    "BY_KIND",
    "HEALTH_STATUSES",
    "VIEW_ADAPTER",
    "Builder",
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
    "Links",
    "TableView",
    "TaskRow",
    "TasksView",
    "TextView",
    "ToolView",
    "build_view",
    "cap_view",
    "cell",
    "cut_sentence",
    "dict_table",
    "facts",
    "migration",
    "numeric",
    "parse_view",
    "preflight_view",
    "said_in_words",
    "without_paths",
]
