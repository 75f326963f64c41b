"""The composer's side of the screen, a part of :class:`app.screen.chat_model.AgentChatModel`:
where keyboard focus goes (``focus_request``: the card, the edit form or the message
box), why a typed message was not sent (``composer_hint``), and a refused message handed
back to the box (``draft_request``). The requests are counted, so asking for the same
place twice moves focus twice.
"""

from __future__ import annotations

from nicegui.binding import BindableProperty


class ComposerState:
    focus_request = BindableProperty()  # ("card" | "edit" | "input", n): where focus goes
    composer_hint = BindableProperty()  # why a typed message was not sent (a card waits)
    draft_request = BindableProperty()  # (text, n): a refused message back in the composer

    def __init__(self) -> None:
        self.focus_request = ("input", 0)
        self.composer_hint = ""
        self.draft_request = ("", 0)

    def _focus(self, target: str) -> None:
        self.focus_request = (target, self.focus_request[1] + 1)

    def give_back(self, text: str) -> None:
        """A message whose turn was refused before it started (e.g. too many a minute)
        goes back into the composer, to send again."""
        self.draft_request = (text, self.draft_request[1] + 1)
        self._focus("input")
