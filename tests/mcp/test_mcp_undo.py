"""Undo through the MCP door, on the real core: an undoable write's result carries its
typed ``undo`` offer (the ``undo_change`` call to make) and says so in its text; the
client makes that call like any other, confirms the undo's dangerous card (it says the
undo itself cannot be undone) and the change is undone, with its ``undone`` audit row."""

from __future__ import annotations

import pytest
from sqlmodel import Session

from app.store import maintenance as maintenance_store
from tests.mcp.real_server import REAL_COUNTDOWN_S, RealMcpServer
from tests.mcp.support import Person, text_of

pytestmark = [pytest.mark.superset, pytest.mark.timeout(300)]


async def test_an_mcp_client_undoes_a_change_with_the_offer_it_was_given(
    real_mcp: RealMcpServer,
) -> None:
    person = Person("accept", "accept", wait_s=REAL_COUNTDOWN_S + 0.5)
    try:
        async with real_mcp.client("ops", elicit=person, name="claude-e2e") as c:
            started = await c.call_tool(
                "start_maintenance", {"env_id": "dev", "reason": "mcp undo probe"}
            )
            assert not started.is_error, text_of(started)
            data = started.structured_content
            assert data is not None
            [offer] = data["offers"]
            assert offer["kind"] == "undo" and offer["call"]["tool_name"] == "undo_change"
            assert offer["call"]["args"] == {"undo_id": data["undo_id"]}
            assert "Can be undone until" in text_of(started)
            undone = await c.call_tool(offer["call"]["tool_name"], offer["call"]["args"])
        assert not undone.is_error, text_of(undone)
        assert undone.structured_content["undone"] == "Start maintenance on dev: mcp undo probe"  # type: ignore[index]
        first, second = (asked.message for asked in person.asked)
        assert "Can be undone for 7 days" in first
        assert "DANGEROUS" in second and "Undo: Start maintenance on dev" in second
        assert "This cannot be undone." in second
        [row] = real_mcp.audit(user="ops", kind="undone")
        assert row["tool"] == "start_maintenance" and row["channel"] == "mcp"
    finally:  # never leave dev in maintenance for the other tests of this server
        assert real_mcp.engine is not None
        with Session(real_mcp.engine) as s:
            maintenance_store.end(s, env_id="dev", ended_by="test")
            s.commit()
