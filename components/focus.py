"""Keyboard focus that follows the screen model: the confirmation card takes
the focus when it appears, the composer gets it back afterwards.

``model.focus_request`` is ``(target, n)``; each new request moves the focus to the
element registered for ``target`` with :func:`focus_on`.
"""

from __future__ import annotations

from typing import Any

from nicegui import ui

from components.bind import on_change


def _move_focus(element: ui.element) -> None:
    if isinstance(element, ui.input):  # Quasar's input focuses its own field
        element.run_method("focus")
    else:  # a focusable element (tabindex -1) in the browser
        element.client.run_javascript(f"getHtmlElement({element.id})?.focus()")


def focus_on(element: ui.element, model: object, target: str) -> ui.element:
    """Move the focus to ``element`` whenever ``model.focus_request`` names ``target``."""
    if not isinstance(element, ui.input):
        element.props('tabindex="-1"')

    def moved(request: Any) -> None:
        if isinstance(request, tuple) and request[0] == target:
            _move_focus(element)

    on_change(element, model, "focus_request", moved)
    return element
