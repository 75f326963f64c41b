"""A checked call waiting to run: the environment it runs on (:func:`call_env`, resolved
once by the guard), what passed the guard (:class:`Checked`), its record in the graph
state, and the hashes that bind a confirmation row to it (the rows themselves:
``app.agent.confirm.Confirmations``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from app.agent.state import AgentContext, PendingCall
from app.policy import EnvChoice, EnvTable, resolve_env


def call_row(ctx: AgentContext, tool: str | None, env: str | None) -> dict[str, Any]:
    """An audit row's fields of a call in a run: who asked (user, role), in which
    conversation, which tool on which environment (the door: ``audit_scope``)."""
    return dict(user=ctx.user_id, role=ctx.role, conv_id=ctx.conv_id, tool=tool, env=env)


def args_hash(tool_name: str, tool_args: dict[str, Any], env_id: str | None) -> str:
    blob = json.dumps([tool_name, tool_args, env_id], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def edit_hash(tool_name: str, args: Mapping[str, Any]) -> str:
    """The hash a consumed confirmation keeps of the arguments a person edited."""
    return args_hash(tool_name, dict(args), None)


def pending_call(
    call: dict[str, Any],
    contract: dict[str, Any],
    risk: str,
    *,
    source: str,
    selected_env: str | None,
) -> PendingCall:
    """The call as the tool node will run it: on ``contract``'s environment (the one the
    card names; ``source`` says where it came from), with the page's environment beside
    it. A call needing no person is confirmed already."""
    needs = bool(contract.get("requires_confirmation"))
    return {
        "call_id": call["id"],
        "tool_name": call["name"],
        "tool_args": contract["tool_args"],
        "env_id": contract.get("env_id"),
        "env_source": source,
        "selected_env": selected_env,
        "risk": risk,
        "risk_level": contract["risk_level"],
        "read_only": risk == "read",
        "needs_confirmation": needs,
        "confirmation_id": None,
        "decision": None if needs else "confirm",
        "reason": None,
    }


def call_env(
    args: Mapping[str, Any], ctx: AgentContext, envs: EnvTable, target: str | None = None
) -> tuple[EnvChoice, str | None]:
    """The call's environment and the page's (submitted > UIContext > default). A tool's
    ``resolve_target`` answer (``target``) is the call's own environment, whatever the page
    selected: the tool acts there."""
    context = ctx.uicontext.envId if ctx.uicontext is not None else None
    page = resolve_env(None, submitted=ctx.selected_env, context=context, envs=envs)
    if target is not None:
        return resolve_env(args, backup_env=target, envs=envs), page.env_id
    return resolve_env(args, submitted=ctx.selected_env, context=context, envs=envs), page.env_id


@dataclass
class Checked:
    """A call that passed the per-call policy: the pending call, its confirmation contract
    and the card's data (``metadata``: the contract plus preflight details)."""

    call: PendingCall
    contract: dict[str, Any]
    metadata: dict[str, Any]
