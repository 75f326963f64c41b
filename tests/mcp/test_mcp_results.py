"""How the gateway's typed events become one MCP tool result (pure, no server)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.events import (
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
from app.mcp.results import collect, to_result
from tests.events import timed_out


async def _stream(*events: Event) -> AsyncIterator[Event]:
    for ev in events:
        yield ev


async def _result(*events: Event) -> Any:
    outcome = await collect(_stream(*events, DoneEvent()), tool_name="t")
    return to_result(outcome, base_url="https://agent.example.com")


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
