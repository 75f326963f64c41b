"""The screen's bindable fields: NiceGUI's ``BindableProperty`` with a cheaper ``__set__``.

A page turn sets the screen's fields some sixty times (a streamed token, a card's status)
and creates its chat items (a tool call has eight bindable fields). NiceGUI's own
``__set__`` probes the instance with ``hasattr`` (an AttributeError raised and caught on
every first set) and runs a binding propagation even for the first value of a new
object, which nothing can be bound to yet. :class:`Bindable` does the same bookkeeping
with one dict lookup, and propagates only a change:

* first value: stored, the object marked bindable (``binding.bindable_properties``, so
  NiceGUI binds to it without polling; its class made copyable), no propagation and no
  change handler (NiceGUI calls none either);
* an equal value (``!=`` is False): nothing;
* a changed value: stored, marked, propagated to the bound elements, change handler.

It relies on NiceGUI's storage of a property's value (``'___' + name`` on the instance)
and its private ``_propagate`` / ``_make_copyable`` (NiceGUI is pinned exactly in
``pyproject.toml``); ``tests/ui/test_bindable.py`` holds it to NiceGUI's own behaviour
and fails when a NiceGUI upgrade changes that.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar, cast, dataclass_transform

from nicegui import binding

T = TypeVar("T")
_MISSING = object()
_propagate = binding._propagate
_make_copyable = binding._make_copyable
_marked = binding.bindable_properties


class Bindable(binding.BindableProperty):
    """A bindable attribute of a screen object (see the module docstring)."""

    def __set_name__(self, owner: Any, name: str) -> None:
        super().__set_name__(owner, name)
        self._slot = "___" + name
        self._key = (name,)

    def __set__(self, owner: Any, value: Any) -> None:
        state = owner.__dict__
        current = state.get(self._slot, _MISSING)
        if current is _MISSING:  # a new object's first value: nothing is bound to it yet
            _make_copyable(type(owner))
            state[self._slot] = value
            _marked[(id(owner), self._key)] = owner
            return
        if not current != value:
            return
        state[self._slot] = value
        key = (id(owner), self._key)
        if _marked.get(key) is not owner:  # (gone only after NiceGUI's binding.reset())
            _marked[key] = owner
        _propagate(owner, self._key)
        if self._change_handler is not None:
            self._change_handler(owner, value)


@dataclass_transform()
def bindable(*fields: str) -> Callable[[type[T]], type[T]]:
    """A dataclass whose ``fields`` alone are :class:`Bindable` (NiceGUI's
    ``bindable_dataclass(bindable_fields=...)``, with this module's property)."""

    def wrap(cls: type[T]) -> type[T]:
        made: Any = dataclasses.dataclass(cls)  # (Any: mypy cannot see a dataclass here)
        names = {f.name for f in dataclasses.fields(made)}
        for name in fields:
            if name not in names:
                raise ValueError(f"{name!r} is not a dataclass field of {cls.__name__}")
            prop = Bindable()
            prop.__set_name__(made, name)
            setattr(made, name, prop)
        return cast("type[T]", made)

    return wrap
