"""What a run of the graph is asked under, and a door's tool list: the same pipeline.

The turn's tool set (:func:`plan_turn`: RBAC, then the page's context; :func:`plan_request`
for a checked request), checkpointed with the conversation; the per-run context the nodes
read (:func:`build_context`, rebuilt for a resume from the checkpointed turn, in the
turn's language: :func:`turn_lang`); and the same pipeline's answer for a door's tool
list (:func:`offered_tools`: MCP ``tools/list``; :func:`tool_listing`:
``GET /api/agent/tools``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from app.agent.core.requests import CallRequest, HistoryItem, TurnRequest
from app.agent.state import AgentContext, TurnInfo
from app.auth import Principal
from app.context import UIContext
from app.facts import TurnFacts
from app.i18n import detect_lang
from app.policy import Exclusion, PipelineResult, Policy, build_tool_pipeline
from app.reasoning import cot_logger
from app.tools.kit import Tool
from app.vocab import Risk


def turn_lang(values: Mapping[str, Any]) -> str:
    """The language of the conversation's last turn: as it was checkpointed, else the
    language of its last message (a checkpoint from before the turn kept it)."""
    kept = (values.get("turn") or {}).get("lang")
    return str(kept) if kept else detect_lang(last_human_text(values.get("messages") or []))


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
        facts=TurnFacts(selected, dict(environments), lang),
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


@dataclass(frozen=True)
class OfferedTool:
    name: str
    description: str  # what the model reads
    input_schema: dict[str, Any]  # the args model's JSON schema
    risk: Risk  # the tool's own risk (a call's may be higher, e.g. parsed SQL)
    idempotent: bool
    open_world: bool


def offered_tools(
    policy: Policy,
    principal: Principal,
    uicontext: UIContext | None,
    tools: Mapping[str, Tool],
) -> list[OfferedTool]:
    """The caller's tools for this context under ``policy`` (the core's
    ``rules.policy()``), in catalog order, with the hints of their declarations in
    ``tools`` (the core's ``rules.tools``)."""
    object_type = uicontext.objectType if uicontext is not None else None
    env_id = uicontext.envId if uicontext is not None else None
    turn = plan_turn(policy, principal.role, object_type, env_id, None)
    catalog = policy.catalog
    offered = []
    for name in turn["allowed_tools"]:
        spec, decl = catalog[name], tools.get(name)
        offered.append(
            OfferedTool(
                name=name,
                description=spec.description,
                input_schema=spec.args_model.model_json_schema(),
                risk=spec.risk,
                idempotent=decl.spec.idempotent if decl is not None else False,
                open_world=decl.spec.open_world if decl is not None else True,
            )
        )
    return offered


def tool_listing(policy: Policy, role: str | None, object_type: str | None) -> PipelineResult[Any]:
    """What ``role`` would be offered on a page of ``object_type`` and why each other tool
    is left out (``GET /api/agent/tools``): the same pipeline a turn runs."""

    def logged(ex: Exclusion) -> None:
        cot_logger.reason("tool excluded", tool=ex.name, layer=ex.layer, why=ex.reason, role=role)

    return build_tool_pipeline(
        list(policy.catalog.values()), role, object_type, policy=policy, log=logged
    )
