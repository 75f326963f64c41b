"""Stream events: every type survives encode_sse -> decode_sse -> parse_event unchanged."""

from __future__ import annotations

from typing import Any, get_args

import pytest
from pydantic import BaseModel, ValidationError

from app.events import (
    EVENT_TYPES,
    Event,
    decode_sse,
    encode_sse,
    parse_event,
    permission_denied_event,
)


def event(kind: str, **fields: Any) -> Event:
    """An event of conversation ``c`` as the wire carries it, read by the app's own table
    of event models (``parse_event``)."""
    return parse_event({"type": kind, "conv_id": "c", **fields})


META = dict(
    tool_name="delete_dashboard",
    tool_args={"dashboard_id": "7", "env_id": "prod-eu"},
    risk="delete",
    risk_level="dangerous",
    dangerous=True,
    env_id="prod-eu",
    env_context="prod",
    required_role="admin",
    card_state="dangerous",
    description="Delete dashboard 7",
)


def row(kind: str, **fields: Any) -> tuple[str, dict[str, Any]]:
    """One event of the table: its type and its own fields."""
    return kind, fields


_STREAM: list[tuple[str, dict[str, Any]]] = [
    # streamed model text, with characters that need escaping in JSON
    row("token", text='He said "hi"\nnew line — ünïcode'),
    # a tool call starts (write tool with a task)
    row(
        "tool_start",
        call_id="k1",
        tool_name="run_backup",
        tool_args={"env_id": "dev", "dashboard_ids": ["1", "2"]},
        is_write_tool=True,
        timeout_s=600.0,
        task_id="t1",
    ),
    # progress of a long task
    row(
        "tool_progress",
        call_id="k1",
        tool_name="run_backup",
        task_id="t1",
        step=2,
        total=5,
        message="exporting",
    ),
    # a failed tool end with the retry flags
    row(
        "tool_end",
        call_id="k1",
        tool_name="search_dashboards",
        status="failed",
        error="Superset answered HTTP 502",
        retryable=True,
        retry_exhausted=True,
        duration_ms=12.5,
    ),
    # the one retry of a read tool
    row(
        "tool_retry",
        call_id="k2",
        tool_name="search_dashboards",
        attempt=1,
        error="HTTP 502",
    ),
    # a write tool timed out: status unknown
    row(
        "tool_timeout",
        call_id="k3",
        tool_name="deploy_dashboard",
        timeout_s=30.0,
        retryable=False,
        status_unknown=True,
        message="Operation status unknown — check Superset",
    ),
    # a confirmation card with the full V2 metadata
    row(
        "confirm_required",
        confirmation_id="abc",
        call_id="k4",
        metadata=META,
        countdown_s=10,
        expires_at="2026-11-30T05:00:00+00:00",
    ),
    # a confirmed call that waits for a second person (four-eyes), with its card
    row(
        "awaiting_approval",
        approval_id="0123456789abcdef0123456789abcdef",
        call_id="k4",
        tool_name="delete_dashboard",
        tool_args={"dashboard_id": "7", "env_id": "prod-eu"},
        env_id="prod-eu",
        env_context="prod",
        risk_level="dangerous",
        requester="alice",
        expires_at="2026-12-01T05:00:00+00:00",
        status="pending",
        metadata=META,
    ),
    # the end of a turn whose call waits for a second person
    row("done", state="idle", reason="awaiting_approval"),
    # a refused call with alternatives
    row(
        "permission_denied",
        tool_name="deploy_dashboard",
        required_role="admin",
        alternatives=[dict(action="get_health_summary", prompt="Check its health")],
        message="requires admin",
    ),
    # the final assistant text
    row("message", text="Done.", model="offline"),
    # an error with a status code
    row("error", code="invalid_uicontext", message="bad", status_code=422),
    # the end of a turn that waits for a person
    row("done", state="awaiting_confirmation"),
    # the turn was accepted: which model answers, how many tools it may use
    row(
        "turn_start",
        model="offline planner",
        tools_offered=9,
        object_type="dashboard",
        env_id="prod",
        lang="ru",
    ),
    # a person stopped the turn; a write in flight goes on
    row("stopped", writes_in_flight=["call_7"], message="Stopped."),
]

# each event as a stream of conversation "c" carries it, numbered from 1 in this order
EVENTS = [
    pytest.param(event(kind, seq=seq, **fields), id=kind)
    for seq, (kind, fields) in enumerate(_STREAM, 1)
]


def test_event_table_covers_every_event_type() -> None:
    covered = {p.values[0].type for p in EVENTS}
    assert covered == set(EVENT_TYPES)


def test_the_event_union_holds_one_model_per_event_type() -> None:
    members = get_args(get_args(Event)[0])
    assert sorted(m.model_fields["type"].default for m in members) == sorted(EVENT_TYPES)


@pytest.mark.parametrize("event", EVENTS)
def test_event_round_trips_through_sse(event: BaseModel) -> None:
    frame = encode_sse(event)
    kind = event.model_dump()["type"]
    assert frame.startswith(f"event: {kind}\ndata: ") and frame.endswith("\n\n")
    assert frame.count("\n\n") == 1  # one frame; newlines inside values are escaped
    (data,) = decode_sse(frame)
    assert data == event.model_dump(mode="json")
    assert parse_event(data) == event


def test_a_stream_of_frames_decodes_in_order() -> None:
    frames = "".join(encode_sse(p.values[0]) for p in EVENTS)
    assert [d["seq"] for d in decode_sse(frames)] == list(range(1, len(EVENTS) + 1))


def test_permission_denied_event_shape() -> None:
    frame = permission_denied_event(
        "deploy_dashboard",
        "admin",
        [{"action": "get_health_summary", "prompt": "Check the dashboard's health"}],
        conv_id="c9",
        seq=4,
    )
    assert frame.startswith("event: permission_denied\n")
    (data,) = decode_sse(frame)
    assert data == {
        "type": "permission_denied",
        "conv_id": "c9",
        "seq": 4,
        "tool_name": "deploy_dashboard",
        "required_role": "admin",
        "alternatives": [
            {"action": "get_health_summary", "prompt": "Check the dashboard's health"}
        ],
        "message": "'deploy_dashboard' requires the admin role.",
        "refusal": None,
    }


@pytest.mark.parametrize(
    "data",
    [
        # an unknown event type is rejected
        {"type": "telemetry", "conv_id": "c", "seq": 1},
        # unknown fields are rejected (extra="forbid")
        {"type": "token", "text": "x", "surprise": True},
        # a tool_end status outside the closed set is rejected
        {"type": "tool_end", "call_id": "k", "tool_name": "t", "status": "exploded"},
    ],
)
def test_parse_event_rejects_malformed_events(data: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        parse_event(data)
