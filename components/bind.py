"""Binding helpers NiceGUI lacks: classes that follow a model field.

NiceGUI has no ``bind_classes``; ``bind_classes_from`` binds a proxy whose setter swaps
an element's classes when the field changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from nicegui import binding, ui


class _ClassSwitch:
    def __init__(self, element: ui.element, mapping: Mapping[Any, str], default: str) -> None:
        self.element, self.mapping, self.default = element, mapping, default
        self._value: Any = object()
        self._all = " ".join({*mapping.values(), default}).split()

    @property
    def value(self) -> Any:
        return self._value

    @value.setter
    def value(self, value: Any) -> None:
        self._value = value
        wanted = self.mapping.get(value, self.default)
        self.element.classes(remove=" ".join(self._all), add=wanted)


def bind_classes_from(
    element: ui.element,
    model: object,
    name: str,
    mapping: Mapping[Any, str],
    *,
    default: str = "",
    backward: Callable[[Any], Any] = lambda v: v,
) -> ui.element:
    """Give ``element`` the classes ``mapping[backward(model.name)]`` (else ``default``)."""
    switch = _ClassSwitch(element, mapping, default)
    switch.value = backward(getattr(model, name))
    binding.bind_from(switch, "value", model, name, backward=backward)
    element._ss_class_switch = switch  # type: ignore[attr-defined]  # keep the proxy alive
    return element
