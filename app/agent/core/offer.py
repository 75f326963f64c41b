"""The tools a caller is offered, as a door lists them (MCP ``tools/list``): the turn's
pipeline answer (RBAC, then the context's affinity; ``turns.plan_turn``, the same set as
``GET /api/agent/tools``), each with what its declaration says about it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.agent.core.turns import plan_turn
from app.agent.tools import ToolDecl
from app.auth import Principal
from app.context import UIContext
from app.policy import Exclusion, PipelineResult, Policy, build_tool_pipeline
from app.reasoning import cot_logger
from app.vocab import Risk

__all__ = ["OfferedTool", "offered_tools", "tool_listing"]


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
    tools: Mapping[str, ToolDecl],
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
                idempotent=decl.idempotent if decl is not None else False,
                open_world=decl.open_world if decl is not None else True,
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
