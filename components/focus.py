"""Keyboard focus that follows the screen model: the confirmation card takes
the focus when it appears, the composer gets it back afterwards.

``model.focus_request`` is ``(target, n)``; each new request moves the focus to the
element registered for ``target`` with :func:`focus_on`.
"""

from __future__ import annotations

from typing import Any

from nicegui import binding, ui


class _FocusWatch:
    def __init__(self, element: ui.element, target: str) -> None:
        self.element, self.target = element, target
        self._value: Any = None

    @property
    def value(self) -> Any:
        return self._value

    @value.setter
    def value(self, value: Any) -> None:
        first = self._value is None
        self._value = value
        if first or not isinstance(value, tuple) or value[0] != self.target:
            return
        if isinstance(self.element, ui.input):  # Quasar's input focuses its own field
            self.element.run_method("focus")
        else:  # a focusable element (tabindex -1) in the browser
            self.element.client.run_javascript(f"getHtmlElement({self.element.id})?.focus()")


def focus_on(element: ui.element, model: object, target: str) -> ui.element:
    """Move the focus to ``element`` whenever ``model.focus_request`` names ``target``."""
    if not isinstance(element, ui.input):
        element.props('tabindex="-1"')
    watch = _FocusWatch(element, target)
    watch.value = getattr(model, "focus_request", None)
    binding.bind_from(watch, "value", model, "focus_request")
    element._ss_focus_watch = watch  # type: ignore[attr-defined]  # keep the proxy alive
    return element
