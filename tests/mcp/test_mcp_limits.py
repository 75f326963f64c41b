"""The MCP door's side of the per-user limits: a person's acceptance refused while their
running requests are full is not spent, so the door asks again (with the wait) and the
card stays pending; a denial is passed on as it is (the core never limits one)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import mcp_types as types

from app.auth import Principal
from app.events import DoneEvent, Event
from app.mcp.caller import Caller
from app.mcp.card import PendingCard
from app.mcp.confirm import Decider
from app.mcp.gateway import GatewayRefused, ToolResumeRequest
from tests.events import confirm_card

CARD = PendingCard.from_event(
    confirm_card(
        "deploy_dashboard",
        {"dashboard_id": "42", "target_env": "prod"},
        env="prod",
        conv_id="mcp-1",
        confirmation_id="cf-1",
        expires_at="2030-01-01T00:00:00Z",
    )
)


class BusyGateway:
    """A gateway whose user's running requests are full: it refuses any acceptance."""

    status_tool = "get_task_status"  # the tool that reports a task (the catalog's)

    def __init__(self) -> None:
        self.asked: list[ToolResumeRequest] = []

    async def list_tools(self, principal: Any, context: Any) -> list[Any]:
        return []

    def call_tool(self, req: Any) -> AsyncIterator[Event]:
        raise AssertionError("not called")

    async def resume(self, req: ToolResumeRequest) -> AsyncIterator[Event]:
        self.asked.append(req)
        if req.decision == "confirm":
            raise GatewayRefused(
                "1 of your requests are already running.",
                status=429,
                error="too_many_running",
                reason="too_many_running",
                retry_after_s=5,
            )
        yield DoneEvent(conv_id=req.conv_id)


def decider(gateway: BusyGateway) -> Decider:
    caller = Caller(Principal(user_id="ana", role="admin"), "pytest", "https://agent.test")
    return Decider(gateway, caller)  # type: ignore[arg-type]


async def test_an_acceptance_refused_for_a_full_set_of_running_requests_is_asked_again() -> None:
    gateway = BusyGateway()
    outcome, note = await decider(gateway).decide(CARD, types.ElicitResult(action="accept"))
    assert outcome is None  # not an answer: the door asks again, the card stays pending
    assert note == "Not yet: 1 of your requests are already running. Accept again in 5 s."
    assert [r.decision for r in gateway.asked] == ["confirm"]


async def test_a_denial_goes_through_whatever_the_limits() -> None:
    gateway = BusyGateway()
    outcome, note = await decider(gateway).decide(CARD, types.ElicitResult(action="decline"))
    assert outcome is not None and note == ""
    assert [r.decision for r in gateway.asked] == ["deny"]
