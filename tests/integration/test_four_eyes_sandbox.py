"""Four-eyes end to end: the product as it ships (``python main.py``) on the real Superset
sandbox, with ``[approval] second_person = ["dangerous@prod"]`` and a webhook receiver.

Admin ``ops`` deletes a real prod dashboard from an MCP client and accepts its card: the
call waits (a typed ``awaiting_approval`` result with the request's id; the webhook gets
the request; ``get_task_status`` reports it). ``ops``'s own approval is refused over MCP
and over HTTP. Admin ``rev`` approves it over HTTP: the dashboard is deleted once, as
``ops``, and the result lands in ``ops``'s conversation."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.agent.test_approval_webhook import Receiver
from tests.mcp.clients import McpEndpoint
from tests.mcp.support import Person, text_of
from tests.sandbox_fixtures import dashboard_exists, sandbox_dashboard
from tests.server_proc import Server, add_user, server_env
from tests.store_reader import AuditReader

pytestmark = [pytest.mark.superset, pytest.mark.timeout(300)]

PASSWORD = "four-eyes-pw-123"
COUNTDOWN_S = 1


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


@pytest.fixture
def product(
    tmp_path: Path, superset_envs_file: Path, receiver: Receiver
) -> Iterator[tuple[McpEndpoint, AuditReader]]:
    data = tmp_path / "data"
    data.mkdir()
    policy = tmp_path / "policy.toml"
    policy.write_text('[approval]\nsecond_person = ["dangerous@prod"]\n')
    env = server_env(
        data,
        SS_TOOLS_ENVIRONMENTS_FILE=str(superset_envs_file),
        SS_TOOLS_POLICY_FILE=str(policy),
        SS_TOOLS_DANGEROUS_COUNTDOWN_S=str(COUNTDOWN_S),
        SS_TOOLS_APPROVAL_WEBHOOK_URL=receiver.url,
        SS_TOOLS_PUBLIC_BASE_URL="https://agent.example.test",
    )
    for name, role in (("ops", "admin"), ("rev", "admin"), ("ana", "analyst")):
        add_user(env, name, role, PASSWORD)
    reader = AuditReader(data / "ss_tools.db")
    try:
        with Server(env) as server:
            tokens = {u: server.token(u, PASSWORD) for u in ("ops", "rev", "ana")}
            yield McpEndpoint(server, tokens), reader
    finally:
        reader.close()


@pytest.fixture
def doomed(superset_sandbox: Any) -> Iterator[int]:
    """A dashboard on the sandbox's prod that the test deletes (through four-eyes)."""
    with sandbox_dashboard(superset_sandbox, "prod", "Four Eyes Doomed", "doomed") as dash_id:
        yield dash_id


async def test_a_prod_delete_waits_for_a_second_admin_and_runs_once_as_the_requester(
    product: tuple[McpEndpoint, AuditReader], doomed: int, superset_sandbox: Any,
    receiver: Receiver,
) -> None:  # fmt: skip
    mcp, audit = product
    server = mcp.server
    person = Person("accept", wait_s=COUNTDOWN_S + 0.5)  # accepts again after the countdown
    args = {"dashboard_id": str(doomed), "env_id": "prod"}
    async with mcp.client("ops", elicit=person, name="claude-e2e") as c:
        result = await c.call_tool("delete_dashboard", args)
        assert not result.is_error, text_of(result)
        waiting = result.structured_content or {}
        assert waiting["status"] == "awaiting_approval", waiting
        approval_id, conv_id = waiting["approval_id"], waiting["conv_id"]
        assert waiting["url"] == "https://agent.example.test/approvals"
        assert "second person" in person.asked[-1].message  # the card said so first
        assert dashboard_exists(superset_sandbox, "prod", doomed)  # nothing ran

        status = await c.call_tool("get_task_status", {"task_id": approval_id})
        assert status.structured_content["task"]["status"] == "waiting_for_approval"  # type: ignore[index]

        # ops's own approval: refused over MCP (the door's tool) ...
        decide = {"approval_id": approval_id, "decision": "approve"}
        own = await c.call_tool("decide_approval", decide)
        assert own.is_error and own.structured_content["error"] == "own_request"  # type: ignore[index]
    # ... and over HTTP, with another token of hers
    other_token = server.token("ops", PASSWORD)
    r = server.post(f"/api/approvals/{approval_id}", other_token, {"decision": "approve"})
    assert (r.status_code, r.json()["error"]) == (403, "own_request")
    assert dashboard_exists(superset_sandbox, "prod", doomed)

    # the webhook got the request (a local receiver)
    assert receiver.got.wait(30)
    assert receiver.bodies[0]["approval"]["id"] == approval_id
    said = receiver.bodies[0]["text"]
    assert "ops asks a second person to approve delete_dashboard on prod" in said

    # rev approves: it runs once, as ops, and lands in ops's conversation
    r = server.post(f"/api/approvals/{approval_id}", mcp.tokens["rev"], {"decision": "approve"},
                    timeout=240)  # fmt: skip
    assert r.status_code == 200, r.text
    assert r.json()["outcome"] == "completed" and r.json()["approval"]["decided_by"] == "rev"
    assert not dashboard_exists(superset_sandbox, "prod", doomed)
    view = server.get(f"/api/agent/conversations/{conv_id}", mcp.tokens["ops"]).json()
    [row] = [c for c in view["tool_calls"] if c["tool_name"] == "delete_dashboard"]
    assert row["status"] == "completed" and view["awaiting_approval"] is None
    executed = audit.rows(kind="executed", conv_id=conv_id)
    assert [(e["user"], e["tool"]) for e in executed] == [("ops", "delete_dashboard")]
    story = [(e["kind"], e["user"]) for e in audit.rows(approval=approval_id)]
    assert story[0] == ("approval_requested", "ops") and ("approved", "rev") in story
    assert ("approval_refused", "ops") in story and story[-1] == ("executed", "ops")

    async with mcp.client("ops", name="claude-e2e") as c:
        status = await c.call_tool("get_task_status", {"task_id": approval_id})
    assert status.structured_content["task"]["status"] == "succeeded"  # type: ignore[index]
