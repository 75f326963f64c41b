"""Where the screen model's actions go: :class:`Intents`, which the page controller
implements (tests pass a recorder). Kept apart from the model so the model stays a list
of fields and transitions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol

if TYPE_CHECKING:
    from app.events import Offer

Decision = Literal["confirm", "deny"]


class Intents(Protocol):
    """The page controller, as the model's actions see it."""

    async def send(self, text: str) -> None: ...

    async def decide(
        self, decision: Decision, reason: str | None, args: Mapping[str, Any] | None = None
    ) -> None: ...

    async def stop(self) -> None: ...

    async def withdraw_approval(self, approval_id: str) -> None: ...

    async def take_offer(self, offer: Offer) -> None: ...

    async def list_conversations(self) -> None: ...

    async def show_conversation(self, conv_id: str) -> None: ...

    async def update_conversation(
        self, conv_id: str, *, title: str | None = None, archived: bool | None = None
    ) -> None: ...

    def args_schema(self, tool_name: str, lang: str = "en") -> dict[str, Any]: ...

    def validate_args(
        self, tool_name: str, args: Mapping[str, Any], lang: str = "en"
    ) -> dict[str, str]: ...


class NotConnected:
    """The model's intents before a controller is connected: every action is a bug."""

    def __getattr__(self, name: str) -> Any:
        raise RuntimeError(f"no page controller is connected to this screen model ({name})")
