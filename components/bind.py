"""Binding helpers NiceGUI lacks: a reaction to a model field's changes, and classes that
follow a model field.

NiceGUI has no ``bind_classes``; :func:`on_change` binds a proxy whose setter calls a
function with each new value, and ``bind_classes_from`` swaps an element's classes with it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from nicegui import binding, ui


class _Reaction:
    """A bound value whose every change after the first calls ``react``."""

    def __init__(self, react: Callable[[Any], None], first: Any) -> None:
        self.react = react
        self._value = first

    @property
    def value(self) -> Any:
        return self._value

    @value.setter
    def value(self, value: Any) -> None:
        self._value = value
        self.react(value)


def on_change(
    element: ui.element,
    model: object,
    name: str,
    react: Callable[[Any], None],
    *,
    backward: Callable[[Any], Any] = lambda v: v,
) -> None:
    """Call ``react(backward(value))`` whenever ``model.name`` changes to ``value`` (never
    for the value it has now); the binding lives as long as ``element``."""
    reaction = _Reaction(react, backward(getattr(model, name, None)))
    binding.bind_from(reaction, "value", model, name, backward=backward)
    kept = element.__dict__.setdefault("_ss_reactions", [])  # keep the proxies alive
    kept.append(reaction)


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
    every = " ".join(" ".join({*mapping.values(), default}).split())

    def switch(value: Any) -> None:
        element.classes(remove=every, add=mapping.get(value, default))

    switch(backward(getattr(model, name)))
    on_change(element, model, name, switch, backward=backward)
    return element
