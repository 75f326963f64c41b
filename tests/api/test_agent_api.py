"""The agent's HTTP API: SSE stream, confirm and deny over HTTP, auth and input errors."""

from __future__ import annotations

import json
from typing import Any

from nicegui.testing import User

from app.events import decode_sse
from app.store.audit_log import list_audit
from tests.agent.harness import first, token_for, types_of
from tests.agent.scripted import call, recording_tools
from tests.support import served


def bearer(user: str = "alice", role: str = "admin") -> dict[str, str]:
    """An Authorization header for ``user`` of the app under test (an active account)."""
    return {"Authorization": f"Bearer {token_for(served(), user, role)}"}


async def post_resume(
    user: User, conv_id: str, confirmation_id: str, decision: str, reason: str | None = None
) -> Any:
    body = {"conv_id": conv_id, "confirmation_id": confirmation_id, "decision": decision}
    if reason is not None:
        body["reason"] = reason
    return await user.http_client.post("/api/agent/resume", headers=bearer(), json=body)


async def post_stream(user: User, body: dict[str, Any], **who: str) -> Any:
    return await user.http_client.post("/api/agent/stream", json=body, headers=bearer(**who))


async def test_stream_confirm_flow_over_http(user: User, harness: Any) -> None:
    log: list[Any] = []
    harness.use_deploy(log)
    r = await post_stream(
        user, {"message": "deploy 42 to prod", "conv_id": "http-confirm", "env_id": "dev"}
    )
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = decode_sse(r.text)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    conf = first(events, "confirm_required")
    pending = await user.http_client.get("/api/agent/conversations/http-confirm", headers=bearer())
    assert pending.json()["pending_confirmation"]["confirmation_id"] == conf["confirmation_id"]
    r = await post_resume(user, "http-confirm", conf["confirmation_id"], "confirm")
    events = decode_sse(r.text)
    assert first(events, "tool_end")["status"] == "completed" and log
    again = await post_resume(user, "http-confirm", conf["confirmation_id"], "confirm")
    assert again.status_code == 409 and again.json()["reason"] in {"replayed", "not_pending"}


async def test_stream_deny_flow_over_http(user: User, harness: Any) -> None:
    log: list[Any] = []
    harness.use(
        call("delete_dashboard", dashboard_id="7", env_id="dev"),
        "Операция отменена.",
        tools=recording_tools(log),
    )
    r = await post_stream(user, {"message": "удали дашборд 7", "conv_id": "http-deny"})
    conf = first(decode_sse(r.text), "confirm_required")
    r = await post_resume(user, "http-deny", conf["confirmation_id"], "deny", reason="wrong one")
    events = decode_sse(r.text)
    assert first(events, "tool_end")["status"] == "cancelled"
    assert first(events, "message")["text"] == "Операция отменена."
    assert log == []


async def test_early_dangerous_confirm_is_refused_over_http(user: User, harness: Any) -> None:
    harness.use_proposal(call("delete_dashboard", dashboard_id="7", env_id="prod"))
    r = await post_stream(user, {"message": "delete 7", "conv_id": "http-early"})
    conf = first(decode_sse(r.text), "confirm_required")
    r = await post_resume(user, "http-early", conf["confirmation_id"], "confirm")
    assert r.status_code == 425 and r.json()["reason"] == "too_early"


async def test_analyst_deploy_is_denied_over_http_without_confirmation(
    user: User, harness: Any
) -> None:
    harness.use_deploy()
    r = await post_stream(
        user,
        {
            "message": "deploy",
            "conv_id": "http-analyst",
            "uicontext": {"objectType": "dashboard", "objectId": "42"},
        },
        role="analyst",
    )
    kinds = types_of(decode_sse(r.text))
    assert "permission_denied" in kinds and "confirm_required" not in kinds


async def test_stream_without_token_is_401_json(user: User) -> None:
    r = await user.http_client.post("/api/agent/stream", json={"message": "hi"})
    assert r.status_code == 401
    assert "reason" in json.dumps(r.json())


async def test_bad_uicontext_is_422_and_oversized_is_413(user: User, harness: Any) -> None:
    harness.use("never")
    r = await post_stream(
        user, {"message": "hi", "conv_id": "bad-ctx", "uicontext": {"objectType": "chart"}}
    )
    assert r.status_code == 422 and r.json()["error"] == "invalid_uicontext"
    r = await post_stream(
        user,
        {
            "message": "hi",
            "conv_id": "big-ctx",
            "uicontext": json.dumps({"objectName": "x" * 5000}),
        },
    )
    assert r.status_code == 413
    with harness.parts.db.session() as s:
        rows = list_audit(s, kind="uicontext_invalid")
    assert {r.conv_id for r in rows} >= {"bad-ctx", "big-ctx"}


async def test_tools_endpoint_answers_for_the_callers_role(user: User) -> None:
    r = await user.http_client.get(
        "/api/agent/tools", params={"objectType": "dashboard"}, headers=bearer(role="analyst")
    )
    assert set(r.json()["tools"]) == {
        "search_dashboards",
        "get_health_summary",
        "run_llm_validation",
        "run_llm_documentation",
        "show_capabilities",
    }
