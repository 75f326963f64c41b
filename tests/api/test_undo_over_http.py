"""Undo over HTTP: an undoable write's ``tool_end`` carries its typed ``undo`` offer, and
an HTTP client undoes the change by making the offer's call (``POST /api/agent/call``):
the same guard and card (dangerous, saying the undo itself cannot be undone) and the same
``POST /api/agent/resume`` as any call; a second undo of it is refused."""

from __future__ import annotations

from typing import Any

from nicegui.testing import User

from app.events import decode_sse
from tests.agent.harness import first
from tests.agent.test_undo_core import PROD
from tests.api.test_agent_api import post_resume
from tests.api.test_agent_call import post_call


async def _confirmed(user: User, conv: str, tool: str, args: dict[str, Any]) -> list[Any]:
    body = {"conv_id": conv, "tool_name": tool, "args": args}
    card = first(decode_sse((await post_call(user, body)).text), "confirm_required")
    return decode_sse((await post_resume(user, conv, card["confirmation_id"], "confirm")).text)


async def test_an_http_client_undoes_a_change_with_the_offers_call(
    user: User, harness: Any
) -> None:
    harness.configure(dangerous_countdown_s=0)
    harness.serve(PROD)
    harness.use(real=True)
    started = first(
        await _confirmed(user, "http-undo", "start_maintenance", {"env_id": "prod"}), "tool_end"
    )
    [offer] = started["offers"]
    assert offer["kind"] == "undo" and offer["call"]["tool_name"] == "undo_change"
    assert started["data"]["undo_id"] == offer["call"]["args"]["undo_id"]

    body = {"conv_id": "http-undo", "tool_name": "undo_change", "args": offer["call"]["args"]}
    card = first(decode_sse((await post_call(user, body)).text), "confirm_required")
    meta = card["metadata"]
    assert meta["dangerous"] and meta["undo"] == "final"
    assert meta["description"] == "Undo: Start maintenance on prod"
    answer = await post_resume(user, "http-undo", card["confirmation_id"], "confirm")
    end = first(decode_sse(answer.text), "tool_end")
    assert end["status"] == "completed" and end["offers"] == []

    again = decode_sse((await post_call(user, body)).text)
    assert first(again, "error")["refusal"]["code"] == "not_undoable"
