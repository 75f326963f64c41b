"""A container rebuilt whenever one field of a model object changes (NiceGUI has no
bound children): a tool card's result view, a message's offer buttons, the confirmation
card's diff. The build runs inside the container's slot, so a change pushed from a
background task (the agent stream) renders too."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from nicegui import binding, ui


class _Rebuild:
    def __init__(self, container: ui.element, build: Callable[[Any], object]) -> None:
        self.container, self.build = container, build
        self._value: Any = object()

    @property
    def value(self) -> Any:
        return self._value

    @value.setter
    def value(self, value: Any) -> None:
        if value is self._value:
            return
        self._value = value
        self.container.clear()
        with self.container:
            self.build(value)


def live_area(obj: object, name: str, build: Callable[[Any], object]) -> ui.element:
    """A column showing ``build(obj.name)``, rebuilt when ``obj.name`` changes."""
    container = ui.column().classes("w-full gap-1")
    proxy = _Rebuild(container, build)
    proxy.value = getattr(obj, name)
    binding.bind_from(proxy, "value", obj, name)
    container._ss_rebuild = proxy  # type: ignore[attr-defined]  # keep the proxy alive
    return container
