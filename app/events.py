"""Stream events (SSE): one model per event type, and their encoding.

The agent core yields these objects (``Event``, a discriminated union); the page consumes
them in process and the SSE door encodes them with :func:`encode_sse`. Wire format:
``event: <type>\\ndata: <json>\\n\\n``. Every event carries ``conv_id`` and a monotonic
``seq`` (per stream). The page's StreamProcessor is the only code that turns events into
screen state; HTTP clients read the same events.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from app.event_values import ConfirmMetadataV2, Offer
from app.event_values import OfferedCall as OfferedCall  # importable here, with the events
from app.facts import Alternative, Refusal
from app.views.models import ToolView
from app.vocab import (
    EVENT_KINDS,
    DoneState,
    EnvTier,
    EventKind,
    RiskLevel,
    ToolStatus,
)


class BaseEvent(BaseModel):
    """Fields every event carries; the core's Sequencer sets them."""

    model_config = ConfigDict(extra="forbid")
    conv_id: str = ""
    seq: int = 0


class TurnStartEvent(BaseEvent):
    """The turn was accepted: who answers and what it may use (sent before any work)."""

    type: Literal["turn_start"] = "turn_start"
    model: str = ""
    tools_offered: int = 0
    object_type: str | None = None
    env_id: str | None = None
    lang: str = "en"


class TokenEvent(BaseEvent):
    type: Literal["token"] = "token"
    text: str


class ToolCallEvent(BaseEvent):
    """Fields of every event about one tool call (each event type names its ``type``)."""

    type: str
    call_id: str
    tool_name: str


class ToolStartEvent(ToolCallEvent):
    type: Literal["tool_start"] = "tool_start"
    tool_args: dict[str, Any] = Field(default_factory=dict)
    is_write_tool: bool = False
    timeout_s: float = 30.0
    task_id: str | None = None


class ToolProgressEvent(ToolCallEvent):
    """Progress of a long task (migration, backup, restore)."""

    type: Literal["tool_progress"] = "tool_progress"
    task_id: str
    step: int
    total: int
    message: str = ""


class ToolEndEvent(ToolCallEvent):
    type: Literal["tool_end"] = "tool_end"
    status: ToolStatus
    result: str = ""
    error: str | None = None
    retryable: bool = False
    retry_exhausted: bool = False
    task_id: str | None = None
    duration_ms: float | None = None
    # The tool's result as JSON values (``app.agent.tool_result.tool_data``): at most 64 KiB, cut
    # structurally beyond that (``data_truncated``); None for a text result or a failure.
    data: Any = None
    data_truncated: bool = False
    view: ToolView | None = None  # how the page presents the result (app.views)
    # What the result caps left out of the view (``view.cut``), said in the turn's
    # language; "" when nothing was (``app.agent.tool_result.cut_note``).
    cut_note: str = ""
    offers: list[Offer] = Field(default_factory=list)  # an undoable write's ``undo``


class ToolRetryEvent(ToolCallEvent):
    type: Literal["tool_retry"] = "tool_retry"
    attempt: int
    max_retries: int = 1
    error: str = ""


class ToolTimeoutEvent(ToolCallEvent):
    type: Literal["tool_timeout"] = "tool_timeout"
    timeout_s: float
    retryable: bool
    status_unknown: bool
    message: str
    offers: list[Offer] = Field(default_factory=list)  # check_status for a write


class ConfirmRequiredEvent(BaseEvent):
    type: Literal["confirm_required"] = "confirm_required"
    confirmation_id: str
    call_id: str
    metadata: ConfirmMetadataV2
    countdown_s: int = 0
    expires_at: str = ""


class AwaitingApprovalEvent(BaseEvent):
    """A confirmed call waits for a second person's approval (four-eyes): it has not run.
    ``approval_id`` names the request (``GET``/``POST /api/approvals/{id}``); ``metadata``
    is the card as the requester confirmed it, which the approver is shown too. When it
    is decided, the call's outcome (or the denial and its reason) lands in this
    conversation, whichever replica took the decision."""

    type: Literal["awaiting_approval"] = "awaiting_approval"
    approval_id: str
    call_id: str
    tool_name: str
    tool_args: dict[str, Any] = Field(default_factory=dict)
    env_id: str | None = None
    env_context: EnvTier | None = None
    risk_level: RiskLevel = "guarded"
    requester: str = ""
    expires_at: str = ""
    status: str = "pending"  # pending | approved | denied | withdrawn | expired
    metadata: ConfirmMetadataV2 | None = None


class PermissionDeniedEvent(BaseEvent):
    type: Literal["permission_denied"] = "permission_denied"
    tool_name: str
    required_role: str
    alternatives: list[Alternative] = Field(default_factory=list)
    message: str = ""
    refusal: Refusal | None = None


class MessageEvent(BaseEvent):
    type: Literal["message"] = "message"
    role: Literal["assistant"] = "assistant"
    text: str
    model: str = ""
    offers: list[Offer] = Field(default_factory=list)
    # the turn ended on what the model did (app.agent.turn_limits, app.agent.nodes.model): step_cap,
    # repeated_call, unknown_tool, invalid_arguments, unreadable, unreachable, timed_out
    problem: str | None = None


class ErrorEvent(BaseEvent):
    type: Literal["error"] = "error"
    code: str
    message: str
    tool_name: str | None = None
    status_code: int | None = None
    refusal: Refusal | None = None  # a refused call: why, as facts
    offers: list[Offer] = Field(default_factory=list)


class DoneEvent(BaseEvent):
    """The stream's end. ``reason`` (added beside ``state``, which old clients read):
    ``awaiting_approval`` when a confirmed call now waits for a second person (``state``
    is then ``idle``: nothing is asked of this client)."""

    type: Literal["done"] = "done"
    state: DoneState = "idle"
    reason: str | None = None


class StoppedEvent(BaseEvent):
    """The person stopped the turn: reads in flight are cancelled; the writes
    listed in ``writes_in_flight`` (call ids) are never killed mid-call and go on, and
    their outcome lands in the conversation when they end."""

    type: Literal["stopped"] = "stopped"
    writes_in_flight: list[str] = Field(default_factory=list)
    message: str = ""


Event = Annotated[
    TurnStartEvent
    | TokenEvent
    | ToolStartEvent
    | ToolProgressEvent
    | ToolEndEvent
    | ToolRetryEvent
    | ToolTimeoutEvent
    | ConfirmRequiredEvent
    | AwaitingApprovalEvent
    | PermissionDeniedEvent
    | MessageEvent
    | ErrorEvent
    | DoneEvent
    | StoppedEvent,
    Field(discriminator="type"),
]
EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)
EVENT_TYPES: Final[tuple[EventKind, ...]] = EVENT_KINDS  # the vocabulary's, one list


def encode_sse(event: BaseModel) -> str:
    """Encode one event as a Server-Sent Event frame."""
    data = event.model_dump(mode="json")
    return f"event: {data['type']}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def decode_sse(text: str) -> list[dict[str, Any]]:
    """Parse a stream of SSE frames back into event dicts (for clients and tests)."""
    out: list[dict[str, Any]] = []
    for frame in text.split("\n\n"):
        data_lines = [ln[5:].lstrip() for ln in frame.splitlines() if ln.startswith("data:")]
        if data_lines:
            out.append(json.loads("\n".join(data_lines)))
    return out


def parse_event(data: dict[str, Any]) -> Event:
    return EVENT_ADAPTER.validate_python(data)


def permission_denied_event(
    tool_name: str,
    required_role: str,
    alternatives: list[dict[str, str]] | list[Alternative],
    *,
    conv_id: str = "",
    seq: int = 0,
    message: str = "",
) -> str:
    """The permission_denied SSE frame. It bypasses the confirmation checkpoint."""
    alts = [a if isinstance(a, Alternative) else Alternative(**a) for a in alternatives]
    ev = PermissionDeniedEvent(
        conv_id=conv_id,
        seq=seq,
        tool_name=tool_name,
        required_role=required_role,
        alternatives=alts,
        message=message or f"'{tool_name}' requires the {required_role} role.",
    )
    return encode_sse(ev)
