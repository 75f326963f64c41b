"""How a turn and a door's direct call open, once the request is checked: the tool set
they offer (``plan_request``), audited (``tool_filtered``), and the conversation's state,
which must be the caller's own (or new)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.agent.audit import AuditWriter
from app.agent.checkpoint import read_before_run
from app.agent.core.prepare import refuse_foreign
from app.agent.core.protocol import Core
from app.agent.core.requests import CallRequest, TurnRequest
from app.agent.core.turns import plan_turn, run_config
from app.agent.state import TurnInfo
from app.policy import Policy


def plan_request(
    policy: Policy, req: TurnRequest | CallRequest, env_id: str | None = None
) -> TurnInfo:
    """The tools ``req`` is offered (``plan_turn``) under its page context, on ``env_id``
    when the request names one, else on the page's environment."""
    ui = req.uicontext
    role = req.principal.role
    if ui is None:
        return plan_turn(policy, role, None, env_id, None)
    return plan_turn(policy, role, ui.objectType, env_id or ui.envId, ui.model_dump())


async def audit_offer(
    audit: AuditWriter, turn: TurnInfo, row: Mapping[str, Any], *, direct_tool: str | None = None
) -> None:
    """The ``tool_filtered`` row of ``turn``'s tool set (``direct_tool``: the one tool a
    door's direct call asks for; ``row``: who and where)."""
    context = turn["object_type"] or "no"
    offered = f"{len(turn['allowed_tools'])} tools offered for {context} context"
    await audit.record(
        kind="tool_filtered",
        decision="allow",
        tool=direct_tool,
        env=turn["selected_env"],
        reason=offered if direct_tool is None else f"direct call; {offered}",
        args={"excluded": turn.get("excluded")},
        **row,
    )


async def owned_state(core: Core, row: Mapping[str, Any]) -> tuple[Any, Any]:
    """The core's graph and the conversation's checkpointed state (``row``: who and where,
    as audited): the caller's own or a new one; another user's raises the audited 403
    (``refuse_foreign``)."""
    graph = await core.graph()
    state = await read_before_run(graph, run_config(row["conv_id"]))  # handed to the run
    owner = (state.values or {}).get("owner")
    if owner and owner != row["user"]:
        raise await refuse_foreign(core.audit, **row)
    return graph, state
