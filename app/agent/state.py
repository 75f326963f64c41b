"""Graph state (checkpointed per conversation) and per-run context (not checkpointed)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from app.context import UIContext
from app.facts import TurnFacts


class TurnInfo(TypedDict, total=False):
    """What the current turn was asked under; kept so a resume can rebuild the context."""

    object_type: str | None
    selected_env: str | None
    uicontext: dict[str, Any] | None
    allowed_tools: list[str]
    excluded: dict[str, str]  # tool -> layer ('rbac' | 'context')
    lang: str  # the language the turn is said in (a resume answers in it)


class PendingCall(TypedDict, total=False):
    call_id: str
    tool_name: str
    tool_args: dict[str, Any]
    env_id: str | None  # the call's environment: the card names it, the tool runs on it
    env_source: str  # where env_id came from (app.policy.envs.EnvSource)
    selected_env: str | None  # the page's environment (a deploy's omitted source)
    risk: str
    risk_level: str
    read_only: bool
    needs_confirmation: bool
    confirmation_id: str | None
    metadata: dict[str, Any]
    countdown_s: int
    expires_at: str
    decision: str | None  # confirm | deny | edit (confirmed with edited_args, to recheck)
    reason: str | None
    edited_args: dict[str, Any] | None  # a person's edit before approving (issue 11)


class AgentState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    owner: str
    turn: TurnInfo
    pending: list[PendingCall]
    # A door's direct tool call (``app.agent.core.runs.call``): the run started at the guard and
    # ends after the tools, also when it is resumed later (from any door). The model node
    # clears it: a run the model answers is a chat turn again.
    direct: bool


@dataclass
class AgentContext:
    """Per-run data the nodes need; rebuilt for every run (LangGraph does not persist it).

    ``uicontext`` is the validated page context (checked once, by prepare_turn);
    ``facts`` are the turn's facts every model reads in its prompt (selected env, the
    environments' tiers); ``channel``/``client`` name the
    door the run came through (every audit row of the run records them); ``control`` is
    the run's stop switch (the core's ``RunControl``; see ``app.agent.stopping``)."""

    user_id: str
    role: str
    conv_id: str
    allowed_tools: list[str] = field(default_factory=list)
    excluded: dict[str, str] = field(default_factory=dict)
    object_type: str | None = None
    selected_env: str | None = None
    uicontext: UIContext | None = None
    lang: str = "en"
    facts: TurnFacts = field(default_factory=TurnFacts)
    channel: str = "page"
    client: str | None = None
    control: Any = None


def call_row(ctx: AgentContext, tool: str | None, env: str | None) -> dict[str, Any]:
    """An audit row's fields of a call in a run: who asked (user, role), in which
    conversation, which tool on which environment (the door: ``audit_scope``)."""
    return dict(user=ctx.user_id, role=ctx.role, conv_id=ctx.conv_id, tool=tool, env=env)
