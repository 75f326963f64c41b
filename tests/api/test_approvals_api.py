"""Four-eyes over HTTP: the stream of a confirmed prod delete ends with ``done`` whose
reason is ``awaiting_approval``; the queue (``GET /api/approvals``); the requester's own
approval refused with any token of hers; a second admin's approval runs it once; the
policy shown by ``GET /api/agent/tools``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nicegui.testing import User

from app.events import decode_sse
from tests.agent.harness import first
from tests.agent.scripted import final_from_tool
from tests.api.test_agent_api import bearer
from tests.support import served

POLICY = '[approval]\nsecond_person = ["dangerous@prod"]\n'


def _tools(ran: list[Any]) -> dict[str, Any]:
    async def delete_dashboard(args: Any, deps: Any) -> Any:
        ran.append((args.dashboard_id, deps.user_id))
        return {"deleted": args.dashboard_id}

    return {"delete_dashboard": delete_dashboard}


async def _waiting(user: User, harness: Any, tmp_path: Path, ran: list[Any]) -> dict[str, Any]:
    """alice asks over HTTP to delete dashboard 42 in prod and confirms: it waits."""
    (tmp_path / "policy.toml").write_text(POLICY)
    harness.configure(policy_file=tmp_path / "policy.toml", dangerous_countdown_s=0)
    harness.use(final_from_tool, tools=_tools(ran))
    body = {"conv_id": "http-4eyes", "tool_name": "delete_dashboard",
            "args": {"dashboard_id": "42", "env_id": "prod"}}  # fmt: skip
    r = await user.http_client.post("/api/agent/call", json=body, headers=bearer())
    card = first(decode_sse(r.text), "confirm_required")
    assert card["metadata"]["second_person"] is True
    answer = {"conv_id": "http-4eyes", "confirmation_id": card["confirmation_id"],
              "decision": "confirm"}  # fmt: skip
    r = await user.http_client.post("/api/agent/resume", json=answer, headers=bearer())
    events = decode_sse(r.text)
    assert events[-1]["type"] == "done"
    assert (events[-1]["state"], events[-1]["reason"]) == ("idle", "awaiting_approval")
    waiting = first(events, "awaiting_approval")
    assert waiting["tool_name"] == "delete_dashboard" and waiting["env_id"] == "prod"
    assert not [e for e in events if e["type"] == "tool_end"] and ran == []
    return waiting


async def test_a_prod_delete_waits_and_only_a_second_admin_runs_it(
    user: User, harness: Any, tmp_path: Path
) -> None:
    ran: list[Any] = []
    waiting = await _waiting(user, harness, tmp_path, ran)
    approval_id = waiting["approval_id"]

    # the queue: bob may decide; alice sees her own request but may not decide it
    r = await user.http_client.get("/api/approvals", headers=bearer("bob"))
    assert r.status_code == 200
    [row] = r.json()["approvals"]
    assert (row["id"], row["requester"], row["may_decide"]) == (approval_id, "alice", True)
    assert row["card"]["dangerous"] and row["card"]["env_context"] == "prod"
    assert r.json()["policy"] == {"second_person": ["dangerous@prod"], "approver_roles": ["admin"]}
    mine = await user.http_client.get(f"/api/approvals/{approval_id}", headers=bearer())
    assert mine.json()["may_decide"] is False

    # alice may not approve it, with this token or another one of hers
    for headers in (bearer(), bearer()):
        r = await user.http_client.post(
            f"/api/approvals/{approval_id}", json={"decision": "approve"}, headers=headers
        )
        assert r.status_code == 403
        assert r.json() == {**r.json(), "error": "own_request"}
    assert ran == []

    # bob approves: it runs once, as alice, and the answer says how it ended
    r = await user.http_client.post(
        f"/api/approvals/{approval_id}", json={"decision": "approve"}, headers=bearer("bob")
    )
    assert r.status_code == 200, r.text
    assert r.json()["outcome"] == "completed" and r.json()["approval"]["status"] == "approved"
    assert ran == [("42", "alice")]
    view = await user.http_client.get("/api/agent/conversations/http-4eyes", headers=bearer())
    assert view.json()["awaiting_approval"] is None
    [done] = [c for c in view.json()["tool_calls"] if c["tool_name"] == "delete_dashboard"]
    assert done["status"] == "completed"

    # decided: a second approval is refused, and the queue is empty again
    r = await user.http_client.post(
        f"/api/approvals/{approval_id}", json={"decision": "approve"}, headers=bearer("carol")
    )
    assert r.status_code == 409 and r.json()["error"] == "already_decided"
    assert (await user.http_client.get("/api/approvals", headers=bearer("bob"))).json()[
        "approvals"
    ] == []
    assert ran == [("42", "alice")]


async def test_bad_decisions_are_refused_with_a_reason(
    user: User, harness: Any, tmp_path: Path
) -> None:
    ran: list[Any] = []
    waiting = await _waiting(user, harness, tmp_path, ran)
    url = f"/api/approvals/{waiting['approval_id']}"
    cases = [
        (url, {"decision": "maybe"}, bearer("bob"), 422, "invalid_request"),
        (url, {"decision": "approve", "extra": 1}, bearer("bob"), 422, "invalid_request"),
        ("/api/approvals/not-an-id", {"decision": "approve"}, bearer("bob"), 422,
         "invalid_approval_id"),
        ("/api/approvals/" + "0" * 32, {"decision": "approve"}, bearer("bob"), 404, "not_found"),
        (url, {"decision": "approve"}, bearer("ana", "analyst"), 403, "not_an_approver"),
        (url, {"decision": "withdraw"}, bearer("bob"), 403, "not_yours"),
        (url, {"decision": "approve"}, {}, 401, "unauthorized"),
    ]  # fmt: skip
    for path, body, headers, status, error in cases:
        r = await user.http_client.post(path, json=body, headers=headers)
        assert (r.status_code, r.json()["error"]) == (status, error), (body, r.text)
    assert ran == []
    # an analyst's queue holds only their own requests (none)
    r = await user.http_client.get("/api/approvals", headers=bearer("ana", "analyst"))
    assert r.json()["approvals"] == []
    r = await user.http_client.get(url, headers=bearer("ana", "analyst"))
    assert r.status_code == 404


async def test_the_requester_withdraws_and_a_denial_lands_in_her_conversation(
    user: User, harness: Any, tmp_path: Path
) -> None:
    ran: list[Any] = []
    waiting = await _waiting(user, harness, tmp_path, ran)
    r = await user.http_client.post(
        f"/api/approvals/{waiting['approval_id']}",
        json={"decision": "deny", "reason": "not in the sale week"},
        headers=bearer("bob"),
    )
    assert r.status_code == 200 and r.json()["approval"]["status"] == "denied"
    view = await user.http_client.get("/api/agent/conversations/http-4eyes", headers=bearer())
    [row] = [c for c in view.json()["tool_calls"] if c["tool_name"] == "delete_dashboard"]
    assert "not in the sale week" in row["result"] and ran == []


async def test_the_tool_list_shows_the_approval_policy(
    user: User, harness: Any, tmp_path: Path
) -> None:
    r = await user.http_client.get("/api/agent/tools", headers=bearer())
    assert r.json()["approval"] == {"second_person": [], "approver_roles": ["admin"]}  # off
    (tmp_path / "policy.toml").write_text(POLICY)
    harness.configure(policy_file=tmp_path / "policy.toml")
    harness.use()
    r = await user.http_client.get("/api/agent/tools", headers=bearer())
    assert r.json()["approval"]["second_person"] == ["dangerous@prod"]
    assert served().core.rules.policy().approval.enabled
