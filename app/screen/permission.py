"""The permission card's state, a part of :class:`app.screen.chat_model.AgentChatModel`: a call
the person's role may not make is never a confirmation; it gets a card of its own that
names the role it needs and the other things this person may do here instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from nicegui.binding import BindableProperty

from app.i18n import t

if TYPE_CHECKING:
    from app.screen.items import ChatMessage


@dataclass(frozen=True)
class PermissionDenial:
    """A call the user's role may not make: never a confirmation, its own card."""

    tool_name: str
    required_role: str
    alternatives: tuple[Mapping[str, str], ...] = field(default_factory=tuple)


class PermissionState:
    lang: str
    if TYPE_CHECKING:  # ChatItems'

        def add_message(self, role: str, text: str, kind: str = "text") -> ChatMessage: ...

    permission_denied = BindableProperty()
    permission_alternatives = BindableProperty()
    permission_text = BindableProperty()

    def __init__(self) -> None:
        self.permission_denied = None  # PermissionDenial | None
        self.permission_alternatives = None  # list[{action, prompt}] | None
        self.permission_text = ""

    def show_permission_denied(self, denial: PermissionDenial) -> None:
        self.permission_denied = denial
        self.permission_alternatives = [dict(alt) for alt in denial.alternatives]
        self.permission_text = t(
            "requires_role", self.lang, tool=denial.tool_name, role=denial.required_role
        )

    def dismiss_permission(self) -> None:
        self.permission_denied = None
        self.permission_alternatives = None

    def close_permission_card(self) -> None:
        """The user closed the card: the alternatives stay in the chat as an agent message."""
        if self.permission_denied is None:
            return
        lines = [self.permission_text]
        if self.permission_alternatives:
            lines.append(t("alternatives", self.lang))
            lines += [f"- {alt.get('prompt', '')}" for alt in self.permission_alternatives]
        self.dismiss_permission()
        self.add_message("assistant", "\n".join(lines), "notice")
