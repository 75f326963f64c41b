"""What a restore reads (the core's ConversationView, as a Protocol) and the chat items it
rebuilds: messages and tool calls in conversation order, each call's card as it ended."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, get_args

from app.events import Offer
from app.facts import Refusal, read_refusal
from app.screen.items import ToolCall, ToolCallStatus
from app.screen.views import view_or_none
from app.vocab import STOPPED_REASON

if TYPE_CHECKING:
    from app.events import ConfirmRequiredEvent

_STATUSES: tuple[str, ...] = get_args(ToolCallStatus)


class ConversationLike(Protocol):
    """The core's ConversationView, as far as a restore reads it."""

    @property
    def messages(self) -> Sequence[Mapping[str, Any]]: ...
    @property
    def tool_calls(self) -> Sequence[Mapping[str, Any]]: ...
    @property
    def pending(self) -> ConfirmRequiredEvent | None: ...


def in_order(
    messages: Sequence[Mapping[str, Any]], calls: Sequence[Mapping[str, Any]]
) -> list[Mapping[str, Any]]:
    """Messages and tool calls in conversation order (their ``position``, when the view
    gives one; else the messages first)."""
    rows = [*messages, *calls]
    if all("position" in r for r in rows):
        return sorted(rows, key=lambda r: r["position"])
    return rows


def restored_offers(rows: Any) -> list[Offer]:
    """The typed offers a restored row carries (none when the view keeps none)."""
    return [Offer.model_validate(o) for o in rows or ()]


def restored_refusal(row: Mapping[str, Any]) -> Refusal | None:
    """The refusal a restored call's result states (a call that never ran, other than one
    the person cancelled on its card), or None."""
    if row.get("status") != "failed":
        return None
    refusal = read_refusal(str(row.get("result") or ""))
    return refusal if refusal is not None and refusal.code != "cancelled" else None


def denied_on_its_card(row: Mapping[str, Any]) -> bool:
    """Whether a restored call is one a person cancelled on its card (not one a stop
    cancelled)."""
    if row.get("status") != "cancelled":
        return False
    refusal = read_refusal(str(row.get("result") or ""))
    return refusal is not None and refusal.code == "cancelled" and refusal.reason != STOPPED_REASON


def restored_call(row: Mapping[str, Any]) -> ToolCall:
    status = str(row.get("status") or "completed")
    if status == "pending":  # no result yet: still running (e.g. a write after a stop)
        status = "executing"
    call = ToolCall(
        call_id=str(row.get("call_id", "")),
        tool_name=str(row.get("tool_name", "")),
        tool_args=dict(row.get("tool_args") or {}),
        status=status if status in _STATUSES else "completed",  # type: ignore[arg-type]
        is_write_tool=bool(row.get("is_write_tool")),
        result=str(row.get("result") or ""),
        error=str(row.get("error") or ""),
        task_id=row.get("task_id"),
        view=view_or_none(row.get("view")),
        offers=restored_offers(row.get("offers")),
    )
    call.refresh_actions()
    return call
