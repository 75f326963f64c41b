"""Confirmations through the MCP door: the server asks by elicitation (in-band on the
handshake wire, as an InputRequiredResult on 2026-07-28); accept runs once, decline or
cancel cancels, a dangerous accept that comes too early is asked again, and a client
without forms gets the confirmation id and a link, never a run."""

from __future__ import annotations

import time

import mcp_types as types
import pytest

from tests.mcp.conftest import COUNTDOWN_S, FakeMcpServer
from tests.mcp.support import Person, ops, text_of

pytestmark = pytest.mark.timeout(120)


async def test_accepted_guarded_write_on_prod_runs_once(
    mcp_server: FakeMcpServer, mode: str
) -> None:
    mark = mcp_server.mark()
    person = Person(("accept", "release 42 approved"))
    async with mcp_server.client("ops", mode=mode, elicit=person, name="claude-test") as c:
        result = await c.call_tool("deploy_dashboard", {"dashboard_id": "42", "target_env": "prod"})
    assert not result.is_error, text_of(result)
    assert result.structured_content["tool"] == "deploy_dashboard"
    assert len(person.asked) == 1
    card = person.asked[0]
    assert card.mode == "form"
    for fact in ("deploy_dashboard", "dashboard_id: 42", "prod (tier prod)", "guarded (write)"):
        assert fact in card.message, card.message
    assert set(card.requested_schema["properties"]) == {"reason"}
    assert card.requested_schema.get("required", []) == []
    rows = mcp_server.log(mark)
    confirmed = ops(rows, "confirmed")
    assert confirmed == [
        {
            "op": "confirmed",
            "tool": "deploy_dashboard",
            "reason": "release 42 approved",
            "channel": "mcp",
            "client": "claude-test",
            "user": "ops",
        }
    ]
    assert len(ops(rows, "executed")) == 1


@pytest.mark.parametrize(
    ("action", "reason"), [("decline", "declined by the user"), ("cancel", "dismissed by the user")]
)
async def test_declined_or_cancelled_write_is_cancelled_and_recorded(
    mcp_server: FakeMcpServer, mode: str, action: str, reason: str
) -> None:
    mark = mcp_server.mark()
    async with mcp_server.client("ops", mode=mode, elicit=Person(action)) as c:
        result = await c.call_tool("deploy_dashboard", {"dashboard_id": "42", "target_env": "prod"})
    assert not result.is_error
    assert text_of(result) == f"cancelled by the user: {reason}"
    assert result.structured_content["status"] == "cancelled"
    rows = mcp_server.log(mark)
    assert [r["reason"] for r in ops(rows, "cancelled")] == [reason]
    assert ops(rows, "cancelled")[0]["channel"] == "mcp"
    assert ops(rows, "executed") == []


async def test_dangerous_call_accepted_too_early_is_refused_and_asked_again(
    mcp_server: FakeMcpServer, mode: str
) -> None:
    mark = mcp_server.mark()
    person = Person("accept", wait_s=COUNTDOWN_S + 0.5)
    started = time.monotonic()
    async with mcp_server.client("ops", mode=mode, elicit=person) as c:
        result = await c.call_tool("delete_dashboard", {"dashboard_id": "42", "env_id": "prod"})
    assert not result.is_error, text_of(result)
    assert time.monotonic() - started >= COUNTDOWN_S
    assert len(person.asked) == 2
    assert person.asked[0].message.startswith("DANGEROUS")
    assert "accepted only 2 s after" in person.asked[0].message
    assert person.asked[1].message.startswith("Not yet: a dangerous operation")
    rows = mcp_server.log(mark)
    assert [r["reason"] for r in ops(rows, "confirmation_refused")] == ["too_early"]
    assert len(ops(rows, "confirmed")) == 1 and len(ops(rows, "executed")) == 1


async def test_a_client_that_keeps_accepting_too_early_leaves_it_pending(
    mcp_server: FakeMcpServer,
) -> None:
    mark = mcp_server.mark()
    person = Person("accept")
    async with mcp_server.client("ops", elicit=person) as c:
        result = await c.call_tool("delete_dashboard", {"dashboard_id": "9", "env_id": "prod"})
    assert not result.is_error
    assert result.structured_content["status"] == "confirmation_required"
    assert "still waiting" in text_of(result)
    assert len(person.asked) == 5
    assert ops(mcp_server.log(mark), "executed") == []


async def test_client_without_elicitation_gets_the_id_and_a_link_and_nothing_runs(
    mcp_server: FakeMcpServer, mode: str
) -> None:
    mark = mcp_server.mark()
    async with mcp_server.client("ops", mode=mode) as c:
        result = await c.call_tool("deploy_dashboard", {"dashboard_id": "42", "target_env": "prod"})
    assert not result.is_error
    s = result.structured_content
    requested = ops(mcp_server.log(mark), "confirm_requested")
    assert s["status"] == "confirmation_required"
    assert s["confirmation_id"] == requested[0]["confirmation_id"]
    assert s["url"] == f"{mcp_server.server.url}/agent?conv={s['conv_id']}"
    assert s["env_id"] == "prod" and s["tier"] == "prod" and s["risk_level"] == "guarded"
    text = text_of(result)
    assert s["confirmation_id"] in text and s["url"] in text and text.startswith("Not run")
    assert ops(mcp_server.log(mark), "executed") == []


async def test_an_elicitation_the_client_fails_leaves_the_call_pending(
    mcp_server: FakeMcpServer,
) -> None:
    mark = mcp_server.mark()
    person = Person(types.ErrorData(code=types.INTERNAL_ERROR, message="no UI"))
    async with mcp_server.client("ops", elicit=person) as c:
        result = await c.call_tool("deploy_dashboard", {"dashboard_id": "1", "target_env": "prod"})
    assert result.structured_content["status"] == "confirmation_required"
    assert "could not show the confirmation" in text_of(result)
    assert ops(mcp_server.log(mark), "executed") == []


async def test_migration_card_shows_the_preflight_diff(mcp_server: FakeMcpServer) -> None:
    person = Person("decline")
    async with mcp_server.client("ops", elicit=person) as c:
        await c.call_tool("execute_migration", {"dashboard_ids": ["7"], "target_env": "prod"})
    message = person.asked[0].message
    assert "Preflight (what it will change):" in message
    assert '"action": "overwrite"' in message and '"id": "7"' in message
