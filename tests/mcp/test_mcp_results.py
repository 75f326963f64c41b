"""How the gateway's typed events become one MCP tool result (pure, no server)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.events import (
    AwaitingApprovalEvent,
    ConfirmMetadataV2,
    ConfirmRequiredEvent,
    DoneEvent,
    ErrorEvent,
    Event,
    ToolEndEvent,
    ToolProgressEvent,
    ToolRetryEvent,
)
from app.mcp.card import PendingCard, card_message
from app.mcp.core_gateway import CoreGateway
from app.mcp.results import collect, to_result
from app.parts import Parts
from tests.events import timed_out


async def _stream(*events: Event) -> AsyncIterator[Event]:
    for ev in events:
        yield ev


async def _result(*events: Event) -> Any:
    outcome = await collect(_stream(*events, DoneEvent()), tool_name="t")
    return to_result(outcome, base_url="https://agent.example.com", status_tool="get_task_status")


def _end(**kw: Any) -> ToolEndEvent:
    return ToolEndEvent(call_id="c", tool_name="t", **kw)


@pytest.mark.parametrize(
    ("text", "structured"),
    [
        ('{"rows": [1, 2]}', {"rows": [1, 2]}),  # a JSON object is the structured output
        ("[1, 2]", {"result": [1, 2]}),  # anything else sits under "result" (MCP ≤ 2025-11-25)
        ("Found 3 items: a, b, c", {"result": "Found 3 items: a, b, c"}),  # plain text
    ],
)
async def test_completed_call_is_structured_content_plus_the_text(
    text: str, structured: dict[str, Any]
) -> None:
    result = await _result(_end(status="completed", result=text))
    assert not result.is_error
    assert result.structured_content == structured
    assert result.content[0].text == text


async def test_failed_read_after_its_retry_says_so_and_is_an_error() -> None:
    retry = ToolRetryEvent(call_id="c", tool_name="t", attempt=1, error="502")
    failed = _end(status="failed", error="Superset unavailable", retry_exhausted=True)
    result = await _result(retry, failed)
    assert result.is_error
    assert result.structured_content["retry_exhausted"] is True
    assert result.content[0].text.endswith("(retried once after a transient error)")


async def test_a_write_timeout_says_its_status_is_unknown() -> None:
    timeout = timed_out("c", "t", message="Operation status unknown — check Superset")
    result = await _result(timeout)
    assert result.is_error and result.structured_content["status_unknown"] is True
    assert result.content[0].text == "Operation status unknown — check Superset"


async def test_the_first_terminal_event_decides_and_progress_is_forwarded() -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(p: float, total: float | None, message: str | None) -> None:
        seen.append((p, total, message))

    events = _stream(
        ToolProgressEvent(call_id="c", tool_name="t", task_id="x", step=1, total=3, message="a"),
        _end(status="completed", result="{}"),
        ErrorEvent(code="late", message="ignored"),
        DoneEvent(),
    )
    outcome = await collect(events, tool_name="t", on_progress=progress)
    assert outcome.kind == "completed" and seen == [(1.0, 3.0, "a")]


async def test_a_stream_without_a_result_is_an_error_not_a_success() -> None:
    result = await _result()
    assert result.is_error and result.structured_content["error"] == "no_result"


async def test_a_call_awaiting_approval_is_not_an_error_and_names_how_to_follow_it() -> None:
    waiting = AwaitingApprovalEvent(
        conv_id="mcp-1", approval_id="ap-7", call_id="c", tool_name="delete_dashboard",
        tool_args={"dashboard_id": 4}, env_id="prod", env_context="prod",
        risk_level="dangerous", expires_at="2026-12-05T10:00:00Z",
    )  # fmt: skip
    outcome = await collect(_stream(waiting, DoneEvent()), tool_name="delete_dashboard")
    result = to_result(outcome, base_url="https://agent.example.com", status_tool="get_task_status")
    assert not result.is_error
    assert result.structured_content["status"] == "awaiting_approval"
    assert result.structured_content["approval_id"] == "ap-7"
    assert result.structured_content["url"] == "https://agent.example.com/approvals"
    text = result.content[0].text
    assert "get_task_status with task_id ap-7 reports it" in text  # the tool the gateway names
    assert text.endswith("Do not call the tool again.")


def test_the_core_gateway_names_the_status_tool_the_catalog_serves(parts: Parts) -> None:
    assert CoreGateway(parts.core).status_tool == "get_task_status"


def _confirm(**md: Any) -> ConfirmRequiredEvent:
    meta = {
        "tool_name": "restore_backup",
        "tool_args": {"backup_id": "b1"},
        "risk": "delete",
        "risk_level": "dangerous",
        "dangerous": True,
        "env_id": "test-main",
        "env_context": "prod",
        **md,
    }
    return ConfirmRequiredEvent(
        conv_id="mcp-1",
        confirmation_id="cid",
        call_id="c",
        metadata=ConfirmMetadataV2(**meta),
        countdown_s=10,
    )


def test_the_card_names_tool_arguments_environment_tier_and_risk() -> None:
    text = card_message(_confirm())
    assert text.startswith("DANGEROUS — Confirm restore_backup?")
    assert "Environment: test-main (tier prod) — PRODUCTION" in text  # the resolved tier
    assert "Risk: dangerous (delete)" in text and "backup_id: b1" in text
    assert "accepted only 10 s after" in text


def test_a_large_preflight_diff_is_cut_with_a_pointer_to_the_page() -> None:
    details = {"dashboards": [{"id": str(i), "action": "overwrite"} for i in range(500)]}
    text = card_message(_confirm(details=details))
    assert "Preflight (what it will change):" in text
    assert "open /agent for the full diff" in text and len(text) <= 6000


def test_a_pending_card_survives_the_round_trip_through_request_state() -> None:
    card = PendingCard.from_event(_confirm())
    assert PendingCard.from_state(card.to_state()) == card
