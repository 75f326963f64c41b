"""A real model's ordinary mistakes end well: every turn ends with
``done``, an audit row and a sentence in the turn's language, never the generic error.

The scripted model plays the mistakes the local Qwen model makes (``docs/local-model.md``):
tool names that do not exist, arguments its args model refuses, the same call again, a
call written as JSON text, a reply the server could not parse (HTTP 500), a server out of
reach, and a turn that never ends.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, SystemMessage

from app.agent.nodes.salvage import Unreadable, salvage
from app.agent.turn_limits import MAX_STEPS, turn_limit
from app.events import ErrorEvent, MessageEvent, TokenEvent
from app.facts import Refusal
from tests.agent.harness import types_of
from tests.agent.scripted import call, recording_tools


class ServerError(Exception):
    """What an OpenAI-compatible client raises for an HTTP error status."""

    def __init__(self, status_code: int) -> None:
        super().__init__(f"Error code: {status_code} - model output does not match the format")
        self.status_code = status_code


def raising(exc: Exception) -> Any:
    def reply(messages: Any, bound: Any) -> AIMessage:
        raise exc

    return reply


def final(events: list[Any]) -> MessageEvent:
    assert types_of(events)[-2:] == ["message", "done"], types_of(events)
    message = events[-2]
    assert isinstance(message, MessageEvent)
    return message


def model_rows(harness: Any) -> list[dict[str, Any]]:
    return [r for r in harness.audit_rows() if str(r["reason"] or "").startswith("model: ")]


async def test_an_unknown_tool_is_refused_with_the_tools_that_exist_and_the_model_repairs(
    harness: Any,
) -> None:
    log: list[Any] = []
    rec = harness.use(
        call("check_dashboard_health", dashboard_id="2"),
        call("get_health_summary", dashboard_id="2"),
        "Dashboard 2 is healthy.",
        tools=recording_tools(log),
    )
    events = await harness.turn("is dashboard 2 ok?")
    refused = next(e for e in events if isinstance(e, ErrorEvent))
    assert refused.refusal is not None and refused.refusal.code == "unknown_tool"
    assert "get_health_summary" in refused.refusal.tools  # the repair: what exists
    assert [name for name, _ in log] == ["get_health_summary"]
    assert final(events).problem is None
    assert "check_dashboard_health" in str(rec.seen[1][-1].content)  # the model read it


async def test_a_second_unknown_tool_ends_the_turn_with_a_sentence(harness: Any) -> None:
    harness.use(call("run_select_region", region="eu"), call("deploy_dashboard_1_to_prod"))
    events = await harness.turn("покажи регион")
    message = final(events)
    assert message.problem == "unknown_tool" and "несуществующие" in message.text
    assert "попыток: 2" in message.text  # one sentence says how many
    assert events[-1].state == "idle"
    assert [r["kind"] for r in model_rows(harness)] == ["failed"]


async def test_arguments_refused_twice_end_the_turn(harness: Any) -> None:
    log: list[Any] = []
    harness.use(
        call("get_health_summary", dashboard="2"),
        call("get_health_summary", dashboard_ids=["2"]),
        tools=recording_tools(log),
    )
    events = await harness.turn("check dashboard 2")
    codes = [e.refusal.code for e in events if isinstance(e, ErrorEvent) and e.refusal]
    assert codes == ["invalid_arguments"] and log == []  # one line; the second is audited
    message = final(events)
    assert message.problem == "invalid_arguments" and "2 times" in message.text
    refused = [r for r in harness.audit_rows() if r["kind"] == "failed" and r["tool"]]
    assert len(refused) == 2


async def test_the_same_call_again_in_one_turn_is_never_run_twice(harness: Any) -> None:
    log: list[Any] = []
    harness.use(
        call("search_dashboards", query="sales"),
        call("search_dashboards", query="sales"),
        "never asked",
        tools=recording_tools(log),
    )
    events = await harness.turn("find sales dashboards")
    assert [name for name, _ in log] == ["search_dashboards"]
    message = final(events)  # its result is in: that is the answer, said plainly
    assert message.problem is None and message.text == "Here is the result."
    assert [r["reason"] for r in model_rows(harness)] == [
        "model: repeated_result: search_dashboards (1)"
    ]


async def test_the_same_failed_call_again_ends_the_turn_on_the_repeat(harness: Any) -> None:
    harness.use(call("search_dashboards", query="sales"), call("search_dashboards", query="sales"))
    events = await harness.turn("find sales dashboards")  # no implementation: it fails
    message = final(events)
    assert message.problem == "repeated_call" and "search_dashboards" in message.text
    assert "did not go through" in message.text  # no result "above" to stand on


async def test_a_turn_stops_at_the_step_cap(harness: Any) -> None:
    log: list[Any] = []
    script = [call("search_dashboards", query=f"q{i}") for i in range(MAX_STEPS + 3)]
    rec = harness.use(*script, tools=recording_tools(log))
    events = await harness.turn("find everything")
    assert len(log) == MAX_STEPS and len(rec.seen) == MAX_STEPS  # not asked a 9th time
    assert final(events).problem == "step_cap"


async def test_a_call_written_as_fenced_json_runs_and_is_never_shown_as_text(
    harness: Any,
) -> None:
    log: list[Any] = []
    text = '```json\n{"name": "search_dashboards", "arguments": {"query": "sales"}}\n```'
    harness.use(AIMessage(content=text), "Found one.", tools=recording_tools(log))
    events = await harness.turn("find sales dashboards")
    assert log == [("search_dashboards", log[0][1])] and log[0][1]["query"] == "sales"
    assert not any(isinstance(e, TokenEvent) and "{" in e.text for e in events)
    assert final(events).text == "Found one."


async def test_a_reply_the_server_could_not_parse_gets_one_repair_try(harness: Any) -> None:
    log: list[Any] = []
    rec = harness.use(
        raising(ServerError(500)),
        call("search_dashboards", query="sales"),
        "Found one.",
        tools=recording_tools(log),
    )
    events = await harness.turn("find sales dashboards")
    assert len(log) == 1 and final(events).problem is None
    note = rec.seen[1][-1]  # the repair note names the tools that exist
    assert isinstance(note, SystemMessage) and "search_dashboards" in note.text
    assert [r["kind"] for r in model_rows(harness)] == ["retried"]


class StreamedError(Exception):
    """What the OpenAI client raises for an error a server sends inside a stream it has
    already opened (no status; the error's body): llama.cpp's parse failure when the model
    names a tool it does not know, seen with the local model (tests/llm)."""

    def __init__(self) -> None:
        super().__init__("The model produced output that does not match the expected format")
        self.body = {"code": 500, "message": str(self), "type": "server_error"}


async def test_an_error_streamed_by_the_server_gets_the_repair_try_not_unreachable(
    harness: Any,
) -> None:
    log: list[Any] = []
    harness.use(
        raising(StreamedError()),
        call("search_dashboards", query="sales"),
        "Found one.",
        tools=recording_tools(log),
    )
    events = await harness.turn("find sales dashboards")
    assert len(log) == 1 and final(events).problem is None
    (row,) = model_rows(harness)
    assert row["kind"] == "retried" and "answered an error (500)" in row["reason"]


async def test_two_unreadable_replies_end_the_turn_plainly(harness: Any) -> None:
    harness.use(raising(ServerError(500)), AIMessage(content='{"name": "search_dash'))
    events = await harness.turn("find sales dashboards")
    message = final(events)
    assert message.problem == "unreadable" and "could not read" in message.text
    assert not any(isinstance(e, ErrorEvent) and e.code == "agent_error" for e in events)
    assert [r["kind"] for r in model_rows(harness)] == ["failed"]


async def test_a_model_server_out_of_reach_is_said_plainly(harness: Any) -> None:
    harness.use(raising(ConnectionError("connection refused")))
    events = await harness.turn("найди дашборды")
    message = final(events)
    assert message.problem == "unreachable" and "недоступна" in message.text


async def test_permission_denied_whatever_the_model(harness: Any) -> None:
    log: list[Any] = []
    deploy = call("deploy_dashboard", dashboard_id="1", target_env="prod")
    harness.use(deploy, "Denied.", tools=recording_tools(log))
    events = await harness.turn("deploy dashboard 1 to prod", role="analyst")
    assert "permission_denied" in types_of(events) and log == []
    assert "confirm_required" not in types_of(events)


@pytest.mark.parametrize(
    ("text", "calls"),
    [
        # a fenced call, the way the local model writes one without a tool template
        ('```json\n{"name": "a", "arguments": {"x": 1}}\n```', [("a", {"x": 1})]),
        # bare JSON with the arguments as a JSON string (OpenAI's own shape)
        ('{"name": "a", "arguments": "{\\"x\\": 1}"}', [("a", {"x": 1})]),
        # a list of calls, other key names
        (
            '[{"tool": "a", "args": {}}, {"name": "b", "parameters": {"y": 2}}]',
            [("a", {}), ("b", {"y": 2})],
        ),
        # prose stays prose
        ("Dashboard 2 is fine.", []),
        # a fenced block that is data, not a call, stays text
        ('Here:\n```json\n{"rows": 2}\n```', []),
    ],
)
def test_salvage_reads_a_call_written_as_text(text: str, calls: list[Any]) -> None:
    got = salvage(AIMessage(content=text))
    assert [(c["name"], c["args"]) for c in got.tool_calls] == calls


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"name": "a", "arguments": {"x": \n```',  # cut off
        '{"name": "a", "arguments": 5}',  # arguments not an object
        '{"region": "eu"}',  # JSON that names no tool
    ],
)
def test_salvage_refuses_json_meant_as_a_call_that_is_not_one(text: str) -> None:
    with pytest.raises(Unreadable):
        salvage(AIMessage(content=text))


def test_a_turn_limit_reads_only_this_turn() -> None:
    from langchain_core.messages import HumanMessage, ToolMessage

    refusal = Refusal(code="unknown_tool", tool_name="x", message="no such tool")
    earlier = [
        HumanMessage("a"),
        call("x"),
        ToolMessage(refusal.tool_result(), tool_call_id="1"),
        call("y"),
        ToolMessage(refusal.tool_result(), tool_call_id="2"),
    ]
    assert turn_limit(earlier) == ("unknown_tool", "x", 2)
    assert turn_limit([*earlier, AIMessage("ok"), HumanMessage("b")]) is None
