"""The chat's items: messages and tool calls, each with bindable fields.

Components render one element per item and bind its fields, so a streamed token or a
tool's status change reaches the browser without rebuilding the chat.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from typing import Any, Literal

from nicegui import binding

ToolCallStatus = Literal["executing", "retrying", "completed", "failed", "timeout", "cancelled"]
MessageKind = Literal["text", "error", "notice"]

_ids = itertools.count(1)


def _next_id() -> int:
    return next(_ids)


@binding.bindable_dataclass
class ChatMessage:
    role: Literal["user", "assistant"]
    text: str = ""
    kind: MessageKind = "text"
    item_id: int = dataclasses.field(default_factory=_next_id)


@binding.bindable_dataclass
class ToolCall:
    """A tool call as the user sees it (contract: ToolCall + retryCount, isWriteTool …)."""

    call_id: str
    tool_name: str
    tool_args: dict[str, Any] = dataclasses.field(default_factory=dict)
    status: ToolCallStatus = "executing"
    is_write_tool: bool = False
    timeout_s: float = 30.0
    retry_count: int = 0
    max_retries: int = 1
    error: str = ""
    result: str = ""
    retryable: bool = False
    status_unknown: bool = False
    task_id: str | None = None
    progress: float | None = None
    progress_message: str = ""
    can_retry: bool = False
    can_check_status: bool = False
    item_id: int = dataclasses.field(default_factory=_next_id)

    @property
    def args_text(self) -> str:
        return format_args(self.tool_args)

    def refresh_actions(self) -> None:
        """Retry only for read tools or transient errors; Check status for a write timeout."""
        ended_badly = self.status in ("failed", "timeout")
        self.can_check_status = self.status == "timeout" and self.is_write_tool
        self.can_retry = (
            ended_badly
            and not self.can_check_status
            and (not self.is_write_tool or (self.retryable and self.status == "failed"))
        )


ChatItem = ChatMessage | ToolCall


def format_args(args: dict[str, Any] | None) -> str:
    """Arguments as ``key: value`` lines (values JSON-encoded when not plain strings)."""
    if not args:
        return "—"
    lines = []
    for key, value in args.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"{key}: {shown}")
    return "\n".join(lines)
