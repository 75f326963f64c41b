"""What a run of the graph is asked under: the turn's tool set (the pipeline), and the
per-run context the nodes read (rebuilt for a resume from the checkpointed turn)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from app.agent.core.requests import HistoryItem
from app.agent.state import AgentContext, TurnInfo
from app.auth import Principal
from app.context import UIContext
from app.facts import TurnFacts
from app.policy import Policy, build_tool_pipeline
from app.reasoning import cot_logger

RECURSION_LIMIT = 30


def run_config(conv_id: str) -> dict[str, Any]:
    """The graph config of a conversation (one checkpoint thread per conversation)."""
    return {"configurable": {"thread_id": conv_id}, "recursion_limit": RECURSION_LIMIT}


def plan_turn(
    policy: Policy,
    role: str,
    object_type: str | None,
    selected_env: str | None,
    uicontext: dict[str, Any] | None,
) -> TurnInfo:
    """The tools this turn offers (RBAC, then the page's context) and what it was asked
    under; checkpointed with the conversation so a resume rebuilds the same context."""
    result = build_tool_pipeline(
        list(policy.catalog.values()),
        role,
        object_type,
        policy=policy,
        log=lambda exclusion: cot_logger.reason(str(exclusion)),
    )
    return TurnInfo(
        object_type=object_type,
        selected_env=selected_env,
        uicontext=uicontext,
        allowed_tools=[t.name for t in result.tools],
        excluded={e.name: e.layer for e in result.excluded},
    )


def build_context(
    principal: Principal,
    conv_id: str,
    turn: Mapping[str, Any],
    lang: str,
    *,
    environments: Mapping[str, str],
    channel: str,
    client: str | None = None,
) -> AgentContext:
    """The run's context. ``environments``: env id -> tier (already resolved)."""
    raw = turn.get("uicontext")
    # validated by prepare_turn before it was checkpointed: trusted, not checked again
    uictx = UIContext.model_construct(**raw) if isinstance(raw, Mapping) else None
    selected = turn.get("selected_env")
    return AgentContext(
        user_id=principal.user_id,
        role=principal.role,
        conv_id=conv_id,
        allowed_tools=list(turn.get("allowed_tools") or []),
        excluded=dict(turn.get("excluded") or {}),
        object_type=turn.get("object_type"),
        selected_env=selected,
        uicontext=uictx,
        lang=lang,
        facts=TurnFacts(selected, dict(environments)),
        channel=channel,
        client=client,
    )


def history_messages(history: tuple[HistoryItem, ...]) -> list[BaseMessage]:
    """Earlier text of a conversation the checkpoint does not know (seeds a new one)."""
    return [
        HumanMessage(content=h.text) if h.role == "user" else AIMessage(content=h.text)
        for h in history
    ]


def last_human_text(messages: list[Any]) -> str:
    for m in reversed(messages):
        if isinstance(m, HumanMessage):
            return str(m.content)
    return ""
