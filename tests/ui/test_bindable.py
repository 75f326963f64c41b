"""``app.screen.bindable`` behaves as NiceGUI's own bindable property, only cheaper: the
same scenario runs on both and must leave the same trace. Fails when a NiceGUI upgrade
changes what the fast property relies on (its value storage, its registry of bindable
properties, its propagation)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from nicegui import binding

from app.screen.bindable import Bindable, bindable
from app.screen.items import ChatMessage, ToolCall


class Target:
    """A plain object an element would be: NiceGUI binds its ``text`` to a source."""

    def __init__(self) -> None:
        self.text: Any = None


def _class(prop: type[binding.BindableProperty], changes: list[Any]) -> type:
    class Source:
        value = prop(on_change=lambda owner, v: changes.append(v))
        other = prop()

        def __init__(self) -> None:
            self.value = "a"
            self.other = 0

    return Source


def _trace(prop: type[binding.BindableProperty]) -> list[Any]:
    changes: list[Any] = []
    source = _class(prop, changes)()
    target = Target()
    trace: list[Any] = [
        (id(source), ("value",)) in binding.bindable_properties,
        (id(source), ("other",)) in binding.bindable_properties,
    ]
    links = len(binding.active_links)
    binding.bind_from(target, "text", source, "value", backward=lambda v: f"<{v}>")
    trace.append(len(binding.active_links) - links)  # 0: a bindable source is not polled
    trace.append(target.text)
    for value in ("a", "b", "b", "", None, "c"):
        source.value = value
        trace.append((target.text, list(changes)))
    twin = copy.copy(source)
    trace.append((id(twin), ("value",)) in binding.bindable_properties)
    trace.append((twin.value, twin.other))
    binding.remove([source, target])
    return trace


def test_same_trace_as_nicegui() -> None:
    ours, theirs = _trace(Bindable), _trace(binding.BindableProperty)
    assert ours == theirs
    # and the trace says what matters: registered, not polled, changes propagate once
    assert ours[:3] == [True, True, 0]
    assert ours[3] == "<a>"
    assert ours[4:10] == [
        ("<a>", []),
        ("<b>", ["b"]),
        ("<b>", ["b"]),
        ("<>", ["b", ""]),
        ("<None>", ["b", "", None]),
        ("<c>", ["b", "", None, "c"]),
    ]
    assert ours[10:] == [True, ("c", 0)]


def test_dataclass_fields() -> None:
    @bindable("live")
    class Item:
        live: str = ""
        fixed: int = 0

    assert isinstance(Item.__dict__["live"], Bindable)
    assert "fixed" not in Item.__dict__ or not isinstance(Item.__dict__["fixed"], Bindable)
    item, target = Item(live="x", fixed=2), Target()
    binding.bind_from(target, "text", item, "live", backward=None)
    item.live = "y"
    assert (item.live, item.fixed, target.text) == ("y", 2, "y")
    assert repr(item) == "test_dataclass_fields.<locals>.Item(live='y', fixed=2)"
    binding.remove([item, target])
    with pytest.raises(ValueError, match="not a dataclass field"):
        bindable("nope")(type("Other", (), {"__annotations__": {"a": "int"}, "a": 0}))


def test_chat_items_use_it() -> None:
    """The chat items' changing fields (the ones the page binds) are the fast kind."""
    for cls, names in ((ChatMessage, ("text", "detail", "offers")), (ToolCall, ("status",))):
        for name in names:
            assert isinstance(cls.__dict__[name], Bindable), (cls, name)
