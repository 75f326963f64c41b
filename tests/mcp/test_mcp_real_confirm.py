"""Confirmations through the MCP door on the real core and the real Superset sandbox:
accept runs a guarded write on prod once, decline cancels it with an audit row, a
dangerous accept that comes too early is refused and asked again, and a client without
forms gets the confirmation id and link — confirming it in the HTTP API runs it once."""

from __future__ import annotations

import uuid

import pytest

from tests.mcp.real_server import REAL_COUNTDOWN_S, RealMcpServer
from tests.mcp.support import Person, text_of

pytestmark = [pytest.mark.superset, pytest.mark.timeout(300)]

BACKUP_PROD = {"env_id": "prod", "dashboard_ids": ["sales-overview"]}


def kinds(rows: list[dict[str, object]]) -> list[object]:
    return [r["kind"] for r in rows]


async def test_an_accepted_guarded_write_on_prod_runs_once(
    real_mcp: RealMcpServer, mode: str
) -> None:
    person = Person(("accept", "nightly backup before the release"))
    async with real_mcp.client("ops", mode=mode, elicit=person, name="claude-e2e") as c:
        result = await c.call_tool("run_backup", BACKUP_PROD)
    assert not result.is_error, text_of(result)
    data = result.structured_content
    assert data is not None and data["env_id"] == "prod" and data["backup_id"]
    assert len(person.asked) == 1
    card = person.asked[0].message
    for fact in ("Confirm run_backup?", "prod (tier prod) — PRODUCTION", "guarded (write)"):
        assert fact in card, card
    conv = real_mcp.audit(user="ops", tool="run_backup", kind="executed")[-1]["conv_id"]
    rows = real_mcp.audit(conv_id=conv)
    assert kinds(rows) == ["tool_filtered", "confirm_requested", "confirmed", "executed"]
    assert {(r["channel"], r["client"]) for r in rows} == {("mcp", "claude-e2e")}
    assert rows[2]["reason"] == "nightly backup before the release"


@pytest.mark.parametrize(
    ("action", "reason"), [("decline", "declined by the user"), ("cancel", "dismissed by the user")]
)
async def test_a_declined_guarded_write_is_cancelled_with_an_audit_row(
    real_mcp: RealMcpServer, action: str, reason: str
) -> None:
    person = Person(action)
    args = {"dashboard_id": "sales-overview", "source_env": "dev", "target_env": "prod"}
    async with real_mcp.client("ops", elicit=person, name="claude-e2e") as c:
        result = await c.call_tool("deploy_dashboard", args)
    assert not result.is_error, text_of(result)
    assert text_of(result) == f"cancelled by the user: {reason}"
    assert result.structured_content["status"] == "cancelled"  # type: ignore[index]
    conv = real_mcp.audit(user="ops", tool="deploy_dashboard", kind="confirm_requested")[-1]
    rows = real_mcp.audit(conv_id=conv["conv_id"])
    assert kinds(rows) == ["tool_filtered", "confirm_requested", "cancelled"]
    assert rows[-1]["reason"] == reason and rows[-1]["channel"] == "mcp"
    assert rows[-1]["decision"] == "cancel"


async def test_a_dangerous_call_accepted_too_early_is_refused_and_asked_again(
    real_mcp: RealMcpServer,
) -> None:
    person = Person("accept", "accept", wait_s=REAL_COUNTDOWN_S + 0.5)
    sql = f"DROP TABLE IF EXISTS mcp_probe_{uuid.uuid4().hex[:8]}"
    async with real_mcp.client("ana", elicit=person, name="claude-e2e") as c:
        result = await c.call_tool("superset_execute_sql", {"sql": sql, "env_id": "dev"})
    assert len(person.asked) == 2
    assert "DANGEROUS" in person.asked[0].message
    assert person.asked[1].message.startswith("Not yet:"), person.asked[1].message
    assert not result.is_error, text_of(result)
    assert result.structured_content["status"] == "success"  # type: ignore[index]
    conv = real_mcp.audit(user="ana", tool="superset_execute_sql", kind="confirm_requested")[-1]
    rows = real_mcp.audit(conv_id=conv["conv_id"])
    refused = [r for r in rows if r["kind"] == "confirmation_refused"]
    assert len(refused) == 1 and refused[0]["reason"].startswith("too_early")
    assert refused[0]["channel"] == "mcp" and refused[0]["client"] == "claude-e2e"
    assert kinds(rows).count("confirmed") == 1
    assert kinds(rows).count("executed") + kinds(rows).count("failed") == 1


async def test_a_client_without_forms_gets_the_link_and_the_http_api_runs_it_once(
    real_mcp: RealMcpServer,
) -> None:
    async with real_mcp.client("ops", name="no-forms") as c:  # no elicitation capability
        result = await c.call_tool("run_backup", BACKUP_PROD)
    assert not result.is_error
    pending = result.structured_content
    assert pending is not None and pending["status"] == "confirmation_required"
    conv_id, confirmation_id = pending["conv_id"], pending["confirmation_id"]
    assert pending["url"] == f"https://agent.example.test/agent?conv={conv_id}"
    assert confirmation_id in text_of(result) and "Not run" in text_of(result)
    assert real_mcp.audit(conv_id=conv_id, kind="executed") == []  # never runs unconfirmed
    body = {"conv_id": conv_id, "confirmation_id": confirmation_id, "decision": "confirm"}
    status, events = real_mcp.resume("ops", **body)
    assert status == 200
    end = next(e for e in events if e["type"] == "tool_end")
    assert end["status"] == "completed" and end["data"]["env_id"] == "prod"
    assert [e["type"] for e in events if e["type"] == "message"] == []  # ends after the tool
    again, answer = real_mcp.resume("ops", **body)
    assert again == 409 and answer[0]["reason"] == "replayed"
    rows = real_mcp.audit(conv_id=conv_id)
    assert kinds(rows).count("executed") == 1
    doors = {r["kind"]: (r["channel"], r["client"]) for r in rows}
    assert doors["confirm_requested"] == ("mcp", "no-forms")
    assert doors["confirmed"] == ("http", None) and doors["executed"] == ("http", None)
