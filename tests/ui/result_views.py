"""A completed call as the result tests show it: ``ran`` (the tool node's start and end
events, the end carrying the real view of a real result, its links to ``BASE``) and
``one`` (the one element with a marker on the page). The ``show`` and ``show_on_page``
fixtures that put a result on the chat panel or the whole page are in this folder's
conftest."""

from __future__ import annotations

from typing import Any

from nicegui import ui
from nicegui.testing import User

from app.events import ToolEndEvent, ToolStartEvent
from app.tools import TOOLS
from app.views import build_view

BASE = "http://superset.test:8088"
NBSP = "\u00a0"


def ran(tool: str, result: dict[str, Any], call_id: str = "c1") -> list[Any]:
    """A completed call as the tool node reports it: start, then the end with its view."""
    found = TOOLS[tool]
    view = build_view(found.spec.presentation, result, superset_url=BASE, builder=found.view)
    return [
        ToolStartEvent(call_id=call_id, tool_name=tool, tool_args={"env_id": "dev"}),
        ToolEndEvent(call_id=call_id, tool_name=tool, status="completed", result="…", view=view),
    ]


def one(user: User, marker: str, kind: type[ui.element] = ui.element) -> Any:
    """The one element marked ``marker`` on the page, a ``kind``."""
    elements = user.find(marker=marker).elements
    assert len(elements) == 1, f"{len(elements)} elements marked {marker}"
    element = next(iter(elements))
    assert isinstance(element, kind), f"{marker} is a {type(element).__name__}"
    return element
