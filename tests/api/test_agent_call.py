"""POST /api/agent/call: an HTTP client makes a tool call directly (an offer's ``call``)
through the same guard as a turn: the same events as SSE, the same refusals as JSON
before any stream, the same permission_denied for a call the role may not make."""

from __future__ import annotations

from typing import Any

import pytest
from nicegui.testing import User

from app.events import decode_sse
from tests.agent.harness import first, types_of
from tests.agent.scripted import call, recording_tools
from tests.api.test_agent_api import bearer, post_stream
from tests.api.test_agent_door import assert_refusal, rows

DASHBOARD_PAGE = {"objectType": "dashboard", "objectId": "42", "envId": "prod"}


async def post_call(user: User, body: dict[str, Any], **who: str) -> Any:
    return await user.http_client.post("/api/agent/call", json=body, headers=bearer(**who))


async def test_a_direct_call_streams_the_same_events_as_a_turn(user: User, harness: Any) -> None:
    ran: list[Any] = []
    harness.use(tools=recording_tools(ran))
    body = {"conv_id": "http-call", "tool_name": "list_environments", "args": {}}
    r = await post_call(user, body)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = decode_sse(r.text)
    assert types_of(events) == ["tool_start", "tool_end", "done"]
    assert [e["seq"] for e in events] == [1, 2, 3]
    assert {e["conv_id"] for e in events} == {"http-call"}
    assert first(events, "tool_end")["status"] == "completed"
    assert ran == [("list_environments", {})]
    assert harness.recorder.seen == []  # no model in a direct call
    assert {row.channel for row in rows("http-call")} == {"http"}


async def test_an_offers_call_taken_over_http_reaches_the_confirmation(
    user: User, harness: Any
) -> None:
    """A turn on a dashboard page is refused by the context and offers the call; the client
    leaves the context (no uicontext) and makes it: the dangerous confirmation."""
    ran: list[Any] = []
    harness.use(
        call("delete_dashboard", dashboard_id="42"), "Not here.", tools=recording_tools(ran)
    )
    turn = {"message": "delete this dashboard", "conv_id": "http-way", "uicontext": DASHBOARD_PAGE}
    events = decode_sse((await post_stream(user, turn)).text)
    assert first(events, "error")["refusal"]["code"] == "not_available"
    (offer,) = first(events, "message")["offers"]
    assert (offer["kind"], offer["clear_context"]) == ("without_context", True)
    assert offer["request"] == "Delete dashboard 42 in prod"
    body = {
        "conv_id": "http-way",
        "tool_name": offer["call"]["tool_name"],
        "args": offer["call"]["args"],
    }
    events = decode_sse((await post_call(user, body)).text)
    conf = first(events, "confirm_required")
    assert conf["metadata"]["tool_name"] == "delete_dashboard" and conf["metadata"]["dangerous"]
    assert conf["metadata"]["env_id"] == "prod"
    assert events[-1] == {**events[-1], "type": "done", "state": "awaiting_confirmation"}
    assert ran == []


async def test_a_call_worded_for_a_russian_client_gets_a_russian_card(
    user: User, harness: Any
) -> None:
    harness.use(tools=recording_tools([]))
    body = {
        "conv_id": "http-ru",
        "tool_name": "delete_dashboard",
        "args": {"dashboard_id": "42", "env_id": "prod"},
        "lang": "ru",
    }
    conf = first(decode_sse((await post_call(user, body)).text), "confirm_required")
    assert conf["metadata"]["description"] == "Удалить дашборд 42 в prod"


async def test_a_call_without_a_token_is_401(user: User, harness: Any) -> None:
    harness.use()
    body = {"conv_id": "x", "tool_name": "list_environments", "args": {}}
    r = await user.http_client.post("/api/agent/call", json=body)
    assert_refusal(r, 401, "unauthorized")
    assert r.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize(
    ("body", "error"),
    [
        # a tool name is letters, digits and underscores
        ({"tool_name": "rm -rf /", "args": {}}, "invalid_tool_name"),
        # the arguments are a JSON object
        ({"tool_name": "list_environments", "args": [1, 2]}, "invalid_arguments"),
        # the body's shape: a tool name is required, unknown fields are refused
        ({"args": {}}, "invalid_request"),
        ({"tool_name": "list_environments", "role": "admin"}, "invalid_request"),
        # a conversation id is a short token
        ({"conv_id": "../../etc", "tool_name": "list_environments"}, "invalid_conv_id"),
        # the page context is checked like a turn's
        ({"tool_name": "list_environments", "uicontext": {"objectType": "chart"}},
         "invalid_uicontext"),
    ],
)  # fmt: skip
async def test_a_bad_call_is_422_before_any_stream(
    user: User, harness: Any, body: dict[str, Any], error: str
) -> None:
    ran: list[Any] = []
    harness.use(tools=recording_tools(ran))
    r = await post_call(user, {"conv_id": "bad-call", **body})
    assert_refusal(r, 422, error)
    assert ran == []


async def test_an_unknown_tool_is_the_guards_refusal_in_the_stream(
    user: User, harness: Any
) -> None:
    harness.use()
    r = await post_call(user, {"conv_id": "no-tool", "tool_name": "drop_everything", "args": {}})
    assert r.status_code == 200
    error = first(decode_sse(r.text), "error")
    assert (
        error["refusal"]["code"] == "unknown_tool"
        and "list_environments" in error["refusal"]["tools"]
    )


async def test_a_call_the_role_may_not_make_is_permission_denied(user: User, harness: Any) -> None:
    ran: list[Any] = []
    harness.use(tools=recording_tools(ran))
    body = {"conv_id": "http-analyst-call", "tool_name": "delete_dashboard",
            "args": {"dashboard_id": "42", "env_id": "dev"}}  # fmt: skip
    events = decode_sse((await post_call(user, body, role="analyst")).text)
    kinds = types_of(events)
    assert "permission_denied" in kinds and "confirm_required" not in kinds
    denied = first(events, "permission_denied")
    assert (denied["tool_name"], denied["required_role"]) == ("delete_dashboard", "admin")
    assert ran == []
