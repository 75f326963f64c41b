"""The chat's items: messages and tool calls, each with bindable fields.

Components render one element per item and bind its changing fields (only those are
bindable), so a streamed token or a tool's status change reaches the browser without
rebuilding the chat.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast, dataclass_transform

from nicegui import binding

if TYPE_CHECKING:
    from app.events import Offer
    from app.screen.views import ToolView

ToolCallStatus = Literal["executing", "retrying", "completed", "failed", "timeout", "cancelled"]
# "problem": the turn ended on what the model did (MessageEvent.problem): the core's own
# sentence in the turn's language, shown as the answer (muted), never as an error
MessageKind = Literal["text", "error", "notice", "problem"]
ANSWER_KINDS: tuple[MessageKind, ...] = ("text", "problem")

_ids = itertools.count(1)
_T = TypeVar("_T")


def _next_id() -> int:
    return next(_ids)


@dataclass_transform()
def _bindable(*fields: str) -> Callable[[type[_T]], type[_T]]:
    """NiceGUI's ``bindable_dataclass`` with only ``fields`` bindable (typed for mypy)."""
    return cast(
        "Callable[[type[_T]], type[_T]]", binding.bindable_dataclass(bindable_fields=fields)
    )


# Only the fields a component binds to (and that change after the item is shown) are
# bindable: a bindable field costs a binding propagation on every change.
@_bindable("text", "detail", "offers")
class ChatMessage:
    """A chat bubble. ``detail`` is the server's own text behind a translated error;
    ``offers`` the ways on the core offered with it (``app.events.Offer``: choices,
    "continue without this page's context"), shown as buttons under the bubble."""

    role: Literal["user", "assistant"]
    text: str = ""
    kind: MessageKind = "text"
    item_id: int = dataclasses.field(default_factory=_next_id)
    detail: str = ""
    offers: list[Offer] = dataclasses.field(default_factory=list)


@_bindable(
    "status",
    "view",
    "error",
    "progress",
    "progress_message",
    "can_retry",
    "can_check_status",
    "can_undo",
    "goes_on",
)
class ToolCall:
    """A tool call as the user sees it (contract: ToolCall + retryCount, isWriteTool …).
    ``offers``: the ways on the core offered for it (a write's timeout: ``check_status``;
    a write that can be undone: ``undo``)."""

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
    can_undo: bool = False
    goes_on: bool = False  # a write a stop did not kill: its outcome comes later
    item_id: int = dataclasses.field(default_factory=_next_id)
    view: ToolView | None = None  # the result's presentation (set by tool_end)
    offers: list[Offer] = dataclasses.field(default_factory=list)

    @property
    def args_text(self) -> str:
        return format_args(self.tool_args)

    @property
    def check_status_offer(self) -> Offer | None:
        return next((o for o in self.offers if o.kind == "check_status"), None)

    @property
    def undo_offer(self) -> Offer | None:
        return next((o for o in self.offers if o.kind == "undo"), None)

    def undone(self, undo_id: str, tool_name: str | None = None) -> bool:
        """Forget the undo offer of ``undo_id`` (its change was undone; ``tool_name``: by
        that tool's call, when the offer calls it); whether it had it."""
        kept = [o for o in self.offers if not _undoes(o, undo_id, tool_name)]
        if len(kept) == len(self.offers):
            return False
        self.offers = kept
        self.refresh_actions()
        return True

    def refresh_actions(self) -> None:
        """Retry only for read tools or transient errors; Check status when the core
        offered it (a write that timed out); Undo when the core offered it (a completed
        write that can be undone)."""
        self.can_undo = self.status == "completed" and self.undo_offer is not None
        ended_badly = self.status in ("failed", "timeout")
        self.can_check_status = ended_badly and self.check_status_offer is not None
        self.can_retry = (
            ended_badly
            and not self.can_check_status
            and (not self.is_write_tool or (self.retryable and self.status == "failed"))
        )


def _undoes(offer: Offer, undo_id: str, tool_name: str | None = None) -> bool:
    call = offer.call
    return (
        offer.kind == "undo"
        and call is not None
        and call.args.get("undo_id") == undo_id
        and (tool_name is None or call.tool_name == tool_name)
    )


ChatItem = ChatMessage | ToolCall


class ChatItems:
    """The chat's item list with listeners (the chat panel renders each added item)."""

    is_empty: bool

    def __init__(self) -> None:
        self.items: list[ChatItem] = []
        self._item_listeners: list[Callable[[ChatItem], object]] = []
        self._reset_listeners: list[Callable[[], object]] = []

    def on_item_added(self, callback: Callable[[ChatItem], object]) -> None:
        self._item_listeners.append(callback)

    def on_reset(self, callback: Callable[[], object]) -> None:
        self._reset_listeners.append(callback)

    def add_item(self, item: ChatItem) -> ChatItem:
        self.items.append(item)
        self.is_empty = False
        for callback in self._item_listeners:
            callback(item)
        return item

    def add_message(self, role: str, text: str, kind: str = "text") -> ChatMessage:
        message = ChatMessage(role=role, text=text, kind=kind)  # type: ignore[arg-type]
        self.add_item(message)
        return message

    def tool_call(self, call_id: str) -> ToolCall | None:
        for item in reversed(self.items):
            if isinstance(item, ToolCall) and item.call_id == call_id:
                return item
        return None

    def history(self) -> list[dict[str, str]]:
        """Earlier text messages for the handler (``role`` + ``content``)."""
        return [
            {"role": m.role, "content": m.text}
            for m in self.items
            if isinstance(m, ChatMessage) and m.kind in ANSWER_KINDS and m.text
        ]

    def _clear_items(self) -> None:
        self.items.clear()
        for callback in self._reset_listeners:
            callback()


def format_args(args: dict[str, Any] | None) -> str:
    """Arguments as ``key: value`` lines (values JSON-encoded when not plain strings)."""
    if not args:
        return "—"
    lines = []
    for key, value in args.items():
        shown = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        lines.append(f"{key}: {shown}")
    return "\n".join(lines)
