"""The policy seam: every proposed tool call goes guard -> (confirmation) -> execute, with an
audit row at each step. Nodes emit event objects (``app.agent.stream.emit``); the core
numbers them.

Guard order for one call:
  unknown tool           -> error event, never executed
  enforce_tool_permission -> permission_denied event with alternatives (never a confirmation)
  not in this turn's set  -> error "tool not available in this context" (context exclusion)
  invalid arguments       -> error event
  the call's environment  -> resolved ONCE (the tool's resolve_target hook, then
                             app.policy.resolve_env); the card names it, the tool runs on it
  maintenance window      -> refused with reason ``maintenance`` (writes; not exempt tools)
  build_confirmation_contract_v2 -> safe: run; guarded/dangerous: interrupt for a person

The policy and the environment table are read per call (``policy()``/``envs()``), so a
changed policy file applies to the next call. The guard's I/O (the maintenance table,
confirmation rows, audit rows) goes through the parts the core hands it.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import KW_ONLY, dataclass
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from pydantic import BaseModel, ValidationError

from app.agent.audit import AuditWriter
from app.agent.confirm import Confirmations
from app.agent.pending import Checked, call_env, call_row, pending_call
from app.agent.state import AgentContext, AgentState, PendingCall
from app.agent.stream import emit
from app.agent.tools.declare import ToolDecl
from app.cpu import off_loop
from app.errors import ToolError
from app.events import Alternative, BaseEvent, ErrorEvent, PermissionDeniedEvent
from app.policy import (
    EnvChoice,
    EnvTable,
    Policy,
    alternatives_for,
    build_confirmation_contract_v2,
    enforce_tool_permission,
    tool_risk,
)
from app.reasoning import cot_logger
from app.store import maintenance
from app.store.db import Database

#: Builds a call's ToolDeps:
#: (*, ctx, env_id, env_source, selected_env, policy, task_id, progress) -> ToolDeps.
DepsFactory = Callable[..., Any]
#: Replaces every declaration's preflight (tests): async (tool_name, args, deps) -> details.
PreflightOverride = Callable[[str, BaseModel, Any], Awaitable[dict[str, Any] | None]]


def _tool_message(text: str, call: dict[str, Any]) -> ToolMessage:
    return ToolMessage(content=text, tool_call_id=call["id"], name=call["name"])


def _active_maintenance(db: Database, env_id: str) -> Any:
    with db.session() as s:
        row = maintenance.active_for(s, env_id=env_id)
        return None if row is None else {"reason": row.reason, "by": row.started_by}


async def _rated(
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


@dataclass(eq=False)
class Guard:
    """What the guard needs besides the state: the declarations, the policy and the
    environment table in force, the deps factory (for the tools' hooks), the database
    (maintenance windows), the confirmation rows, the audit writer and an optional
    preflight override."""

    tools: Mapping[str, ToolDecl]
    _: KW_ONLY
    policy: Callable[[], Policy]
    envs: Callable[[], EnvTable]
    deps_factory: DepsFactory
    db: Database
    confirmations: Confirmations
    audit: AuditWriter
    preflight: PreflightOverride | None = None

    async def open(self, checked: Checked, ctx: AgentContext) -> None:
        """Ask a person: a new single-use confirmation bound to the checked call."""
        await self.confirmations.open(checked.call, ctx, checked.contract, checked.metadata)

    async def __call__(self, state: AgentState, ctx: AgentContext) -> dict[str, Any]:
        last = state["messages"][-1]
        assert isinstance(last, AIMessage)
        refused: list[ToolMessage] = []
        pending: list[PendingCall] = []
        for call in last.tool_calls:
            outcome = await self.check(dict(call), ctx)
            if isinstance(outcome, ToolMessage):
                refused.append(outcome)
                continue
            if outcome.call["needs_confirmation"]:
                await self.open(outcome, ctx)
            pending.append(outcome.call)
        return {"messages": refused, "pending": pending}

    async def _refuse(
        self,
        call: dict[str, Any],
        ctx: AgentContext,
        *,
        kind: str,
        code: str,
        message: str,
        decision: str = "deny",
        env: str | None = None,
        event: BaseEvent | None = None,
    ) -> ToolMessage:
        emit(event or ErrorEvent(code=code, message=message, tool_name=call["name"]))
        await self.audit.record(
            kind=kind,
            decision=decision,
            reason=message,
            args=call.get("args"),
            **call_row(ctx, call["name"], env),
        )
        return _tool_message(f"{code.upper()}: {message}", call)

    async def check(
        self, call: dict[str, Any], ctx: AgentContext, *, preflight: bool = True
    ) -> Checked | ToolMessage:
        """The per-call policy, in the module docstring's order: a refusal (a ToolMessage,
        already emitted and audited) or the checked call with its contract and card data.
        It opens no confirmation: the guard does for a new call; an answer compares first
        (``app.agent.edit``). ``preflight=False`` skips the preflight (an unedited answer:
        its card already showed it)."""
        name, raw = call["name"], dict(call.get("args") or {})
        policy = self.policy()
        decl = self.tools.get(name)
        decision = enforce_tool_permission(name, ctx.role, policy=policy)
        if decl is None or decision.outcome == "error":
            return await self._refuse(
                call,
                ctx,
                kind="not_available",
                code="unknown_tool",
                message=f"unknown tool '{name}'",
                decision="error",
            )
        if decision.outcome == "deny":
            required = decision.required_role or "admin"
            alts = alternatives_for(ctx.role, ctx.object_type, exclude={name}, policy=policy)
            msg = f"'{name}' requires the {required} role; your role is {ctx.role}."
            cot_logger.explore("permission denied", tool=name, role=ctx.role, required=required)
            ev = PermissionDeniedEvent(
                tool_name=name,
                required_role=required,
                alternatives=[Alternative(**a) for a in alts],
                message=msg,
            )
            return await self._refuse(
                call, ctx, kind="permission_denied", code="permission_denied", message=msg, event=ev
            )
        if name not in ctx.allowed_tools:
            where = ctx.object_type or "this"
            return await self._refuse(
                call,
                ctx,
                kind="not_available",
                code="not_available",
                message=f"tool not available in this context ({where} page): {name}",
            )
        try:
            model = decl.args_model.model_validate(raw)
        except ValidationError as exc:
            errs = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'args'}: {e['msg']}" for e in exc.errors()[:5]
            )
            return await self._refuse(
                call,
                ctx,
                kind="failed",
                code="invalid_arguments",
                message=f"invalid arguments for {name}: {errs}",
                decision="error",
            )
        args = model.model_dump(mode="json")
        envs = self.envs()
        target = None
        if decl.resolve_target is not None:
            page, _ = call_env(args, ctx, envs)
            try:
                target = await decl.resolve_target(model, self._deps(ctx, page, None, policy))
            except ToolError as exc:
                return await self._refuse(
                    call, ctx, kind="failed", code="invalid_arguments", message=str(exc),
                    decision="error",
                )  # fmt: skip
        env, selected = call_env(args, ctx, envs, target)
        risk, contract = await _rated(name, args, ctx, policy, envs, env)
        if risk != "read" and not decl.maintenance_exempt and env.env_id:
            active = await asyncio.to_thread(_active_maintenance, self.db, env.env_id)
            if active:
                why = f": {active['reason']}" if active.get("reason") else ""
                return await self._refuse(
                    call,
                    ctx,
                    kind="maintenance_refused",
                    code="maintenance",
                    env=env.env_id,
                    message=f"environment '{env.env_id}' is in a maintenance window{why}; "
                    "write tools are refused until it ends",
                )
        return await self._pending(
            call, ctx, decl, model, contract, risk, env, selected, policy, preflight=preflight
        )

    def _deps(self, ctx: AgentContext, env: EnvChoice, selected: str | None, policy: Policy) -> Any:
        return self.deps_factory(
            ctx=ctx, env_id=env.env_id, env_source=env.source, selected_env=selected,
            policy=policy, task_id=None, progress=None,
        )  # fmt: skip

    async def _pending(
        self,
        call: dict[str, Any],
        ctx: AgentContext,
        decl: ToolDecl,
        model: BaseModel,
        contract: dict[str, Any],
        risk: str,
        env: EnvChoice,
        selected: str | None,
        policy: Policy,
        *,
        preflight: bool = True,
    ) -> Checked | ToolMessage:
        deps = self._deps(ctx, env, selected, policy)
        name, env_id = call["name"], contract.get("env_id")
        p = pending_call(call, contract, risk, source=env.source, selected_env=selected)
        metadata = {k: v for k, v in contract.items() if k != "requires_confirmation"}
        if not p["needs_confirmation"] or not preflight:
            return Checked(p, contract, metadata)
        check = decl.preflight
        if self.preflight is not None:
            check = functools.partial(self.preflight, name)
        if check is not None:
            try:
                details = await check(model, deps)
            except Exception as exc:  # a preflight failure blocks the call, visibly
                return await self._refuse(
                    call,
                    ctx,
                    kind="failed",
                    code="preflight_failed",
                    message=f"preflight for {name} failed: {exc}",
                    env=env_id,
                    decision="error",
                )
            if details:
                metadata["details"] = details
                if details.get("errors"):
                    return await self._refuse(
                        call,
                        ctx,
                        kind="failed",
                        code="preflight_failed",
                        env=env_id,
                        decision="error",
                        message="preflight found problems: " + "; ".join(details["errors"]),
                    )
        return Checked(p, contract, metadata)
