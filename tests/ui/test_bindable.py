"""The screen's changing fields are NiceGUI's own bindable properties (no fast path of
ours): a change reaches a bound element at once, without polling, and a field the page
never binds stays a plain attribute."""

from __future__ import annotations

from typing import Any

from nicegui import binding

from app.screen.chat_model import AgentChatModel
from app.screen.items import ChatMessage, ToolCall


class Target:
    """A plain object an element would be: NiceGUI binds its ``text`` to a source."""

    def __init__(self) -> None:
        self.text: Any = None


def test_a_chat_items_change_reaches_its_bound_element_without_polling() -> None:
    message, call, target, status = (
        ChatMessage(role="assistant"),
        ToolCall("c1", "t"),
        Target(),
        Target(),
    )
    links = len(binding.active_links)
    binding.bind_from(target, "text", message, "text", backward=lambda v: f"<{v}>")
    binding.bind_from(status, "text", call, "status", backward=None)
    assert len(binding.active_links) == links  # bindable sources: not polled
    message.text = "Hel"
    message.text += "lo"
    call.status = "completed"
    assert (target.text, status.text) == ("<Hello>", "completed")
    assert "tool_args" not in ToolCall.__dict__ or not isinstance(
        ToolCall.__dict__["tool_args"], binding.BindableProperty
    )
    binding.remove([message, call, target, status])


def test_the_screen_models_state_reaches_its_bound_element() -> None:
    screen, target = AgentChatModel(role="admin"), Target()
    binding.bind_from(target, "text", screen, "state", backward=None)
    screen.state = "streaming"
    assert target.text == "streaming"
    binding.remove([screen, target])
