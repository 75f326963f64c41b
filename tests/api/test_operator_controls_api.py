"""The operator's controls over HTTP: ``args`` on /resume (edit before
approving), a denial's ``reason`` reaching the model and the audit log, /cancel across
doors, and the conversation list."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from langchain_core.messages import ToolMessage
from nicegui.testing import User

from app.events import StoppedEvent, ToolStartEvent, decode_sse
from app.facts import read_refusal
from tests.agent.harness import first, types_of
from tests.agent.scripted import call, final_from_tool, recording_tools
from tests.api.test_agent_api import bearer, post_stream
from tests.waiting import WAIT_S, until


async def post_resume(user: User, conv_id: str, conf: dict[str, Any], **body: Any) -> Any:
    payload = {"conv_id": conv_id, "confirmation_id": conf["confirmation_id"], **body}
    return await user.http_client.post("/api/agent/resume", headers=bearer(), json=payload)


async def _deploy_card(user: User, harness: Any, log: list[Any], conv_id: str) -> dict[str, Any]:
    harness.use_proposal(
        call("deploy_dashboard", dashboard_id="42", target_env="staging"), log, final_from_tool
    )
    r = await post_stream(user, {"message": "deploy 42 to staging", "conv_id": conv_id})
    return first(decode_sse(r.text), "confirm_required")


# ---- edit before approving ---------------------------------------------------------------


async def test_a_same_risk_edit_runs_over_http(user: User, harness: Any) -> None:
    log: list[Any] = []
    conf = await _deploy_card(user, harness, log, "edit-same")
    edited = {"dashboard_id": "43", "target_env": "staging"}
    r = await post_resume(user, "edit-same", conf, decision="confirm", args=edited)
    events = decode_sse(r.text)
    assert first(events, "tool_end")["status"] == "completed"
    assert "confirm_required" not in types_of(events)
    assert log[0][1]["dashboard_id"] == "43"
    [row] = harness.audit_rows(kind="confirmed", conv_id="edit-same")
    assert row["args"]["shown"]["dashboard_id"] == "42" and row["args"]["edited"] == edited


async def test_a_risk_raising_edit_gets_a_new_confirmation_and_spends_the_old_id(
    user: User, harness: Any
) -> None:
    log: list[Any] = []
    harness.use_proposal(
        call("superset_execute_sql", sql="UPDATE sales SET region = 'EU'", env_id="dev"), log
    )
    r = await post_stream(user, {"message": "fix regions", "conv_id": "edit-risk"})
    conf = first(decode_sse(r.text), "confirm_required")
    r = await post_resume(
        user, "edit-risk", conf, decision="confirm", args={"sql": "DELETE FROM sales"}
    )
    again = first(decode_sse(r.text), "confirm_required")
    assert again["confirmation_id"] != conf["confirmation_id"]
    assert again["metadata"]["risk_level"] == "dangerous" and again["countdown_s"] == 10
    assert log == []
    old = await post_resume(user, "edit-risk", conf, decision="confirm")
    assert old.status_code == 409 and old.json()["reason"] in {"replayed", "mismatch"}


async def test_an_env_changing_edit_gets_a_new_prod_confirmation(user: User, harness: Any) -> None:
    log: list[Any] = []
    conf = await _deploy_card(user, harness, log, "edit-env")
    r = await post_resume(
        user,
        "edit-env",
        conf,
        decision="confirm",
        args={"dashboard_id": "42", "target_env": "prod"},
    )
    again = first(decode_sse(r.text), "confirm_required")
    assert again["metadata"]["card_state"] == "write_prod"
    assert again["metadata"]["env_context"] == "prod" and log == []
    old = await post_resume(user, "edit-env", conf, decision="confirm")
    assert old.status_code == 409


async def test_a_forbidden_edit_is_permission_denied(user: User, harness: Any) -> None:
    log: list[Any] = []
    conf = await _deploy_card(user, harness, log, "edit-forbidden")
    payload = {
        "conv_id": "edit-forbidden",
        "confirmation_id": conf["confirmation_id"],
        "decision": "confirm",
        "args": {"dashboard_id": "43", "target_env": "staging"},
    }
    r = await user.http_client.post(
        "/api/agent/resume", headers=bearer(role="analyst"), json=payload
    )
    events = decode_sse(r.text)
    denied = first(events, "permission_denied")
    assert denied["required_role"] == "admin" and log == []
    assert "confirm_required" not in types_of(events)


async def test_edited_args_the_model_rejects_are_422_and_keep_the_confirmation(
    user: User, harness: Any
) -> None:
    log: list[Any] = []
    conf = await _deploy_card(user, harness, log, "edit-invalid")
    bad = await post_resume(
        user, "edit-invalid", conf, decision="confirm", args={"dashboard_id": "42", "x": 1}
    )
    assert bad.status_code == 422 and bad.json()["error"] == "invalid_args"
    assert "x" in bad.json()["reason"]
    ok = await post_resume(user, "edit-invalid", conf, decision="confirm")
    assert first(decode_sse(ok.text), "tool_end")["status"] == "completed"


# ---- deny with a reason -------------------------------------------------------------------


async def test_a_denial_reason_reaches_the_model_and_the_audit_log(
    user: User, harness: Any
) -> None:
    conf = await _deploy_card(user, harness, [], "deny-reason")
    r = await post_resume(user, "deny-reason", conf, decision="deny", reason="wrong dashboard")
    events = decode_sse(r.text)
    assert first(events, "tool_end")["status"] == "cancelled"
    seen = harness.recorder.seen[-1]
    feedback = next(m for m in reversed(seen) if isinstance(m, ToolMessage))
    refusal = read_refusal(feedback.content)
    assert refusal is not None
    assert (refusal.code, refusal.reason) == ("cancelled", "wrong dashboard")
    [row] = harness.audit_rows(kind="cancelled", conv_id="deny-reason")
    assert row["reason"] == "wrong dashboard"


# ---- stop ----------------------------------------------------------------------------------


async def test_a_page_turn_is_stopped_over_http_by_its_owner(user: User, harness: Any) -> None:
    release = asyncio.Event()

    async def slow_search(args: Any, deps: Any) -> Any:
        await release.wait()
        return []

    harness.use(call("search_dashboards", query="x"), tools={"search_dashboards": slow_search})
    req = await harness.turn_request("find x", conv_id="stop-cross")
    page_events: list[Any] = []

    async def page() -> None:
        async for ev in harness.core.run_turn(req):
            page_events.append(ev)

    task = asyncio.ensure_future(page())
    await until(
        lambda: any(isinstance(e, ToolStartEvent) for e in page_events), "the read never started"
    )
    foreign = await user.http_client.post(
        "/api/agent/cancel", headers=bearer(user="bob"), json={"conv_id": "stop-cross"}
    )
    assert foreign.status_code == 403 and foreign.json()["error"] == "forbidden"
    r = await user.http_client.post(
        "/api/agent/cancel", headers=bearer(), json={"conv_id": "stop-cross"}
    )
    assert r.status_code == 200
    assert r.json() == {
        "conv_id": "stop-cross",
        "stopped": True,
        "withdrawn": None,
        "writes_in_flight": [],
        "confirmed": True,  # the turn runs here: stopped at once, not merely accepted
        "status": "stopped",
    }
    await asyncio.wait_for(task, WAIT_S)
    assert any(isinstance(e, StoppedEvent) for e in page_events)
    [row] = harness.audit_rows(kind="turn_stopped", conv_id="stop-cross")
    assert row["channel"] == "http"


async def test_cancel_refuses_bad_requests(user: User, harness: Any) -> None:
    harness.use("Hi.")
    anonymous = await user.http_client.post("/api/agent/cancel", json={"conv_id": "x"})
    assert anonymous.status_code == 401
    shapeless = await user.http_client.post("/api/agent/cancel", headers=bearer(), json={})
    assert shapeless.status_code == 422 and shapeless.json()["error"] == "invalid_request"
    unknown = await user.http_client.post(
        "/api/agent/cancel", headers=bearer(), json={"conv_id": "never-seen"}
    )
    assert unknown.status_code == 404 and set(unknown.json()) >= {"error", "reason"}


# ---- the conversation list --------------------------------------------------------------


async def test_the_list_holds_own_conversations_newest_first_with_a_pending_badge(
    user: User, harness: Any
) -> None:
    harness.use(
        "Hello.",
        call("deploy_dashboard", dashboard_id="42", target_env="prod"),
        "Bob's answer.",
        tools=recording_tools([]),
    )
    me = f"carol-{uuid.uuid4().hex[:6]}"  # the test database is shared: a fresh owner

    async def stream(body: dict[str, Any], who: str = me) -> None:
        await user.http_client.post("/api/agent/stream", json=body, headers=bearer(user=who))

    await stream({"message": "hello there", "conv_id": f"{me}-a", "env_id": "dev"})
    uictx = {"objectType": "dashboard", "objectId": "42", "envId": "prod"}
    await stream({"message": "deploy 42 to prod", "conv_id": f"{me}-b", "uicontext": uictx})
    await stream({"message": "bob here", "conv_id": f"{me}-c"}, who=f"bob-{me}")
    await harness.core.turns().drain()
    r = await user.http_client.get("/api/agent/conversations", headers=bearer(user=me))
    rows = r.json()["conversations"]
    assert [c["conv_id"] for c in rows] == [f"{me}-b", f"{me}-a"]
    b, a = rows
    assert b["pending_confirmation"] is True and a["pending_confirmation"] is False
    assert (b["title"], b["object_type"], b["env_id"]) == ("deploy 42 to prod", "dashboard", "prod")
    assert (a["env_id"], a["object_type"]) == ("dev", None)
    assert set(b) >= {"conv_id", "title", "updated_at", "env_id", "object_type"}


async def test_rename_and_archive_keep_the_checkpoint_and_the_audit_trail(
    user: User, harness: Any
) -> None:
    harness.use(
        call("search_dashboards", query="sales"), final_from_tool, tools=recording_tools([])
    )
    me = f"dave-{uuid.uuid4().hex[:6]}"
    body = {"message": "find sales", "conv_id": "list-x", "env_id": "dev"}
    await user.http_client.post("/api/agent/stream", json=body, headers=bearer(user=me))
    await harness.core.turns().drain()
    url = "/api/agent/conversations/list-x"
    mine = bearer(user=me)
    renamed = await user.http_client.patch(url, headers=mine, json={"title": "Sales hunt"})
    assert renamed.status_code == 200 and renamed.json()["title"] == "Sales hunt"
    foreign = await user.http_client.patch(url, headers=bearer(user="bob"), json={"title": "x"})
    assert foreign.status_code == 403
    archived = await user.http_client.patch(url, headers=mine, json={"archived": True})
    assert archived.json()["archived"] is True
    listed = await user.http_client.get("/api/agent/conversations", headers=mine)
    assert listed.json()["conversations"] == []
    hidden = await user.http_client.get("/api/agent/conversations?archived=1", headers=mine)
    assert [c["title"] for c in hidden.json()["conversations"]] == ["Sales hunt"]
    view = await user.http_client.get(url, headers=mine)  # the checkpoint is still there
    calls = view.json()["tool_calls"]
    assert calls[0]["tool_name"] == "search_dashboards" and calls[0]["status"] == "completed"
    assert '"tool": "search_dashboards"' in calls[0]["result"]
    assert harness.audit_rows(kind="executed", conv_id="list-x")
    assert harness.audit_rows(kind="conversation_changed", conv_id="list-x")
