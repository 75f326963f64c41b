"""The requester's card of a call that waits for a second person (four-eyes), a part of
:class:`app.screen.chat_model.AgentChatModel`: "Waiting for a second approver", the call (tool,
arguments, environment badge), when the request expires, and Withdraw.

The card stands for the call until a second person decides it: the page controller checks
the request every few seconds (``app.pages.agent_approvals``) and, once it is decided,
rebuilds the chat from the conversation (its result, or the denial and its reason, and
the sentence after it), whichever replica ran it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from nicegui.binding import BindableProperty

from app.i18n import t
from app.screen.items import format_args
from app.screen.uicontext import env_badge

if TYPE_CHECKING:
    from app.events import AwaitingApprovalEvent


class ApprovalWaitState:
    lang: str
    _intents: Any
    process_step: str  # the model's (the steps' bar)
    clear_confirmation: Callable[[], None]  # the model's: the answered card goes

    awaiting_approval = BindableProperty()  # AwaitingApprovalEvent | None
    approval_tool = BindableProperty()
    approval_args_text = BindableProperty()
    approval_env_badge = BindableProperty()
    approval_hint = BindableProperty()
    approval_withdrawing = BindableProperty()

    def __init__(self) -> None:
        self.awaiting_approval = None
        self.approval_tool = self.approval_args_text = self.approval_env_badge = ""
        self.approval_hint = ""
        self.approval_withdrawing = False

    @property
    def approval_id(self) -> str | None:
        waiting = self.awaiting_approval
        return waiting.approval_id if waiting is not None else None

    def show_awaiting_approval(self, event: AwaitingApprovalEvent) -> None:
        """The call waits for a second person: its card (what the requester confirmed)
        stands where the answered confirmation card was."""
        self.clear_confirmation()
        self.awaiting_approval = event
        self.approval_tool = event.tool_name
        self.approval_args_text = format_args(event.tool_args)
        self.approval_env_badge = env_badge(event.env_id, event.env_context, self.lang)
        expires = event.expires_at.replace("T", " ")[:16] + " UTC" if event.expires_at else "—"
        status = event.status
        key = f"approval_status_{status}"
        self.approval_hint = (
            t(key, self.lang) if status in ("expired", "withdrawn")
            else t("approval_waiting_hint", self.lang, expires=expires)
        )  # fmt: skip
        self.approval_withdrawing = False
        self.process_step = "confirm"  # waiting for a person (the second one)

    def clear_awaiting_approval(self) -> None:
        self.awaiting_approval = None
        self.approval_tool = self.approval_args_text = self.approval_env_badge = ""
        self.approval_hint = ""
        self.approval_withdrawing = False

    async def withdraw_approval(self) -> bool:
        """The requester withdraws the waiting request (nothing runs)."""
        approval_id = self.approval_id
        if approval_id is None or self.approval_withdrawing:
            return False
        self.approval_withdrawing = True
        await self._intents.withdraw_approval(approval_id)
        return True
