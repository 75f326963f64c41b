"""A call that passed the guard's per-call policy (:class:`Checked`): the call as the tool
node will run it (:func:`pending_call`), on the environment resolved once
(:func:`call_env`), with its risk and confirmation contract (:func:`rated`), and its
card's data with the tool's preflight (:func:`checked_call`).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import ToolMessage
from pydantic import BaseModel

from app.agent.audit import AuditWriter
from app.agent.call_checks import card_of, stated_refusal
from app.agent.nodes.refuse import refuse
from app.agent.state import AgentContext, PendingCall
from app.cpu import off_loop
from app.errors import CallRefused, ToolError
from app.facts import Refusal
from app.policy import (
    EnvChoice,
    EnvTable,
    Policy,
    build_confirmation_contract_v2,
    resolve_env,
    tool_risk,
)
from app.policy.undo import undo_note
from app.tools.kit import Tool

#: Replaces every declaration's preflight (tests): async (tool_name, args, deps) -> details.
PreflightOverride = Callable[[str, BaseModel, Any], Awaitable[dict[str, Any] | None]]


@dataclass
class Checked:
    """A call that passed the per-call policy: the pending call, its confirmation contract
    and the card's data (``metadata``: the contract plus preflight details)."""

    call: PendingCall
    contract: dict[str, Any]
    metadata: dict[str, Any]


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


async def rated(
    name: str,
    args: dict[str, Any],
    ctx: AgentContext,
    policy: Policy,
    envs: EnvTable,
    env: EnvChoice,
) -> tuple[str, dict[str, Any]]:
    """The call's risk and its confirmation contract (pure policy). A tool that rates each
    call from its arguments (the SQL tool parses its text in several dialects) is rated in
    the CPU pool, so a long text never stalls the event loop (``app.cpu``)."""

    def rate() -> tuple[str, dict[str, Any]]:
        contract = build_confirmation_contract_v2(
            name, args, ctx.role, ctx.selected_env, policy=policy, envs=envs, env=env,
            object_type=ctx.object_type, lang=ctx.lang,
        )  # fmt: skip
        return tool_risk(name, args, policy=policy), contract

    spec = policy.spec(name)
    if spec is not None and spec.call_risk is not None:
        return await off_loop(rate)
    return rate()


async def checked_call(
    call: dict[str, Any],
    ctx: AgentContext,
    decl: Tool,
    model: BaseModel,
    contract: dict[str, Any],
    risk: str,
    env: EnvChoice,
    selected: str | None,
    policy: Policy,
    *,
    deps: Any,
    audit: AuditWriter,
    undo_days: int,
    override: PreflightOverride | None = None,
    preflight: bool = True,
) -> Checked | ToolMessage:
    """The call that passed the per-call policy with its card's data: the contract, the
    undo note, and the preflight's details (``deps``: the call's ToolDeps); a failed
    preflight is a refusal. ``preflight=False`` skips the preflight (an unedited answer:
    its card already showed it); ``override`` replaces every tool's preflight (tests)."""
    name, env_id = call["name"], contract.get("env_id")
    p = pending_call(call, contract, risk, source=env.source, selected_env=selected)
    metadata = {k: v for k, v in contract.items() if k != "requires_confirmation"}
    metadata |= undo_note(policy.spec(name), risk, undo_days)
    if not p["needs_confirmation"] or not preflight:
        return Checked(p, contract, metadata)

    async def failed(message: str, errors: list[str]) -> ToolMessage:
        """The check before the card failed or found problems: the call is refused."""
        refusal = Refusal(
            code="preflight_failed", tool_name=name, message=message, args=p["tool_args"],
            env_id=env_id, errors=errors,
        )  # fmt: skip
        return await refuse(audit, call, ctx, refusal, kind="failed", decision="error")

    check = decl.preflight
    if override is not None:
        check = functools.partial(override, name)
    if check is not None:
        try:
            details = await check(model, deps)
        except CallRefused as exc:  # the tool's own check said no, with its reason
            refused, kind, decision = stated_refusal(exc, name, p["tool_args"], env_id)
            return await refuse(audit, call, ctx, refused, kind=kind, decision=decision)
        except Exception as exc:  # a preflight failure blocks the call, visibly
            why = f"{type(exc).__name__}: {exc}" if not isinstance(exc, ToolError) else str(exc)
            return await failed(f"preflight for {name} failed: {why}", [why])
        if details:
            metadata = card_of(metadata, details)
            if details.get("errors"):
                errors = [str(e) for e in details["errors"]]
                return await failed("preflight found problems: " + "; ".join(errors), errors)
    return Checked(p, contract, metadata)
