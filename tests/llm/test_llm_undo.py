"""The real small model and undo, over HTTP against the real Superset sandbox: a turn
whose write can be undone (a delete in prod, confirmed once its countdown has run) ends
with the typed ``undo`` offer on the write's ``tool_end``, whatever the model says after
it; the offer's call, made at the door, brings the dashboard back."""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from app.events import decode_sse
from app.sandbox.superset_rest import SupersetSession
from tests.llm.conftest import TURN_TIMEOUT_S, Turn, ask, stream, token
from tests.llm_fixtures import LLM_TEST_TIMEOUT_S
from tests.sandbox_fixtures import sandbox_dashboard

pytestmark = [
    pytest.mark.llm,
    pytest.mark.superset,
    pytest.mark.timeout(LLM_TEST_TIMEOUT_S),
]


def confirmed(srv: Any, bearer: str, conv_id: str, card: dict[str, Any]) -> Turn:
    """The card confirmed once its countdown has run: a confirm refused as too early
    (425) is sent again, until the product takes it (at most a minute)."""
    body = {"conv_id": conv_id, "confirmation_id": card["confirmation_id"], "decision": "confirm"}
    deadline = time.monotonic() + 60
    while True:
        response = httpx.post(
            srv.url + "/api/agent/resume",
            json=body,
            headers={"Authorization": f"Bearer {bearer}"},
            timeout=TURN_TIMEOUT_S,
        )
        if response.status_code != 425 or time.monotonic() > deadline:
            break
        time.sleep(0.25)
    assert response.status_code == 200, response.text
    return Turn(decode_sse(response.text), conv_id, response.text)


def test_a_turn_after_an_undoable_write_carries_its_typed_undo_offer(
    llm_product: Any, superset_sandbox: Any
) -> None:
    admin = token(llm_product, "ops")
    with sandbox_dashboard(superset_sandbox, "prod", "LLM Undo", "llm-undo") as dash_id:
        inst = superset_sandbox.env("prod")
        turn = ask(llm_product, admin, f"delete dashboard {dash_id} in prod", env_id="prod")
        turn.ended_well()
        (card,) = turn.of("confirm_required")
        meta = card["metadata"]
        assert (meta["tool_name"], meta["env_id"]) == ("delete_dashboard", "prod"), meta
        assert (meta["undo"], meta["undo_days"]) == ("undoable", 7)  # said before confirming

        ran = confirmed(llm_product, admin, turn.conv_id, card)
        ran.ended_well()
        (end,) = [e for e in ran.of("tool_end") if e["tool_name"] == "delete_dashboard"]
        assert end["status"] == "completed", end
        [offer] = end["offers"]  # the core's typed fact, whatever the model says next
        assert offer["kind"] == "undo" and offer["call"]["tool_name"] == "undo_change"
        assert offer["call"]["args"] == {"undo_id": end["data"]["undo_id"]}
        assert ran.said().strip()

        undo = stream(llm_product, admin, "/api/agent/call", {
            "conv_id": turn.conv_id, "tool_name": "undo_change", "args": offer["call"]["args"],
        })  # fmt: skip
        (undo_card,) = undo.of("confirm_required")
        assert undo_card["metadata"]["description"].startswith("Undo: Delete dashboard")
        back = confirmed(llm_product, admin, turn.conv_id, undo_card)
        (undone,) = back.of("tool_end")
        assert undone["status"] == "completed", undone
        with SupersetSession(inst.url, inst.username, inst.password) as ss:
            back_again = [
                r for r in ss.list_all("dashboard", ["id", "dashboard_title"])
                if r["dashboard_title"] == "LLM Undo"
            ]  # fmt: skip
            assert len(back_again) == 1  # back (under a new id: a delete frees its id)
            ss.raw("DELETE", f"/api/v1/dashboard/{back_again[0]['id']}", expect=(200, 404))
