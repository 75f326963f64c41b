"""StreamProcessor: the only code that turns agent events into screen-model state.

Events are the dicts of ``app.agent.events`` (``decode_sse`` output). Unknown event types
are ignored with a log line, so a newer server never breaks an older page.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from app.screen.i18n import t
from app.screen.items import ChatMessage, ToolCall

if TYPE_CHECKING:
    from app.screen.model import AgentChatModel

log = logging.getLogger(__name__)


class StreamProcessor:
    def __init__(self, model: AgentChatModel) -> None:
        self.model = model
        self._open: ChatMessage | None = None  # the assistant bubble tokens stream into
        self._messages_shown = 0

    async def run(self, events: AsyncIterator[dict[str, Any]]) -> int:
        """Apply a whole stream; returns the number of assistant messages it produced."""
        self._open, self._messages_shown = None, 0
        async for event in events:
            self.apply(event)
        self._open = None
        return self._messages_shown

    def apply(self, event: dict[str, Any]) -> None:
        handler = getattr(self, f"_on_{event.get('type', '')}", None)
        if handler is None:
            log.warning("ignoring unknown agent event type %r", event.get("type"))
            return
        handler(event)

    # ---- text -------------------------------------------------------------------------
    def _on_turn_start(self, ev: dict[str, Any]) -> None:
        """The server accepted the turn: say at once which model is answering."""
        if ev.get("model"):
            self.model.answered_by = str(ev["model"])

    def _on_token(self, ev: dict[str, Any]) -> None:
        if self._open is None:
            self._open = self.model.add_message("assistant", "")
            self._messages_shown += 1
        self._open.text += ev.get("text", "")
        self.model.process_step = "answer"

    def _on_message(self, ev: dict[str, Any]) -> None:
        text = ev.get("text", "")
        if ev.get("model"):
            self.model.answered_by = str(ev["model"])
        if self._open is not None:
            self._open.text = text or self._open.text
        else:
            self.model.add_message("assistant", text)
            self._messages_shown += 1
        self._open = None
        self.model.process_step = "answer"

    def _on_error(self, ev: dict[str, Any]) -> None:
        self._open = None
        self.model.add_message("assistant", ev.get("message") or ev.get("code", "error"), "error")
        self._messages_shown += 1
        self.model.state = "error"

    def _on_done(self, ev: dict[str, Any]) -> None:
        self._open = None
        if self.model.pending_confirmation is not None and self.model.card_state:
            self.model.state = "awaiting_confirmation"
        elif ev.get("state") in ("idle", "error"):
            self.model.state = ev["state"]
        if self.model.state == "idle":
            self.model.process_step = "answer"

    # ---- tools ------------------------------------------------------------------------
    def _on_tool_start(self, ev: dict[str, Any]) -> None:
        self._open = None
        self.model.process_step = "tools"
        call = self.model.tool_call(ev["call_id"])
        if call is not None:  # a resumed call re-announced after confirmation
            call.status = "executing"
            call.refresh_actions()
            return
        self.model.add_item(
            ToolCall(
                call_id=ev["call_id"],
                tool_name=ev.get("tool_name", ""),
                tool_args=dict(ev.get("tool_args") or {}),
                is_write_tool=bool(ev.get("is_write_tool")),
                timeout_s=float(ev.get("timeout_s", 30.0)),
                task_id=ev.get("task_id"),
            )
        )

    def _call(self, ev: dict[str, Any]) -> ToolCall:
        call = self.model.tool_call(ev["call_id"])
        if call is None:  # an event for a call whose start we missed (restored page)
            call = ToolCall(call_id=ev["call_id"], tool_name=ev.get("tool_name", ""))
            self.model.add_item(call)
        return call

    def _on_tool_progress(self, ev: dict[str, Any]) -> None:
        call = self._call(ev)
        if call.status in ("completed", "failed", "cancelled", "timeout"):
            return  # a late progress report never rolls a finished card back
        total = max(1, int(ev.get("total", 1)))
        call.progress = min(1.0, max(0.0, int(ev.get("step", 0)) / total))
        call.progress_message = ev.get("message", "")
        call.task_id = ev.get("task_id") or call.task_id

    def _on_tool_retry(self, ev: dict[str, Any]) -> None:
        call = self._call(ev)
        call.retry_count = int(ev.get("attempt", call.retry_count + 1))
        call.max_retries = int(ev.get("max_retries", call.max_retries))
        call.error = ev.get("error", "")
        call.status = "retrying"  # last: the card's status label is bound to it
        call.refresh_actions()

    def _on_tool_timeout(self, ev: dict[str, Any]) -> None:
        call = self._call(ev)
        call.status = "timeout"
        call.retryable = bool(ev.get("retryable"))
        call.status_unknown = bool(ev.get("status_unknown"))
        call.is_write_tool = call.is_write_tool or call.status_unknown
        call.error = (
            t("status_unknown", self.model.lang) if call.status_unknown else ev.get("message", "")
        )
        call.refresh_actions()

    def _on_tool_end(self, ev: dict[str, Any]) -> None:
        call = self._call(ev)
        if call.status == "timeout":  # the timeout already said what matters
            return
        call.status = ev.get("status", "completed")
        call.result = ev.get("result", "")
        call.error = ev.get("error") or ""
        call.retryable = bool(ev.get("retryable"))
        if call.status == "completed":
            call.progress = 1.0 if call.progress is not None else None
        call.refresh_actions()

    # ---- confirmation and permission -----------------------------------------------------
    def _on_confirm_required(self, ev: dict[str, Any]) -> None:
        self._open = None
        meta = ev.get("metadata") or {}
        if meta.get("permission_granted") is False:
            self._on_permission_denied(
                {
                    "tool_name": meta.get("tool_name", ""),
                    "required_role": meta.get("required_role") or "admin",
                    "alternatives": meta.get("alternatives") or [],
                }
            )
            return
        self.model.show_confirmation(ev)

    def _on_permission_denied(self, ev: dict[str, Any]) -> None:
        self._open = None
        self.model.show_permission_denied(ev)

    # ---- restore ------------------------------------------------------------------------
    def restore(self, conversation: dict[str, Any]) -> None:
        """Rebuild the chat from ``get_conversation`` output (reload, second tab)."""
        model = self.model
        model.reset(conv_id=model.conv_id)
        for message in conversation.get("messages") or []:
            role = "user" if message.get("role") == "user" else "assistant"
            model.add_message(role, message.get("text") or message.get("content") or "")
            if role == "user":
                model.last_user_text = message.get("text") or ""
        pending = conversation.get("pending_confirmation")
        if pending:
            self._on_confirm_required(pending)
        else:
            model.state = "idle"
