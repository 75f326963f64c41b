"""The policy seam: every proposed tool call goes guard -> (confirmation) -> execute, with an
audit row at each step. Nodes emit stream events through LangGraph's stream writer;
the handler numbers and encodes them.

Guard order for one call:
  unknown tool           -> error event, never executed
  enforce_tool_permission -> permission_denied event with alternatives (never a confirmation)
  not in this turn's set  -> error "tool not available in this context" (context exclusion)
  invalid arguments       -> error event
  maintenance window      -> refused with reason ``maintenance`` (writes; not end_maintenance)
  build_confirmation_contract_v2 -> safe: run; guarded/dangerous: interrupt for a person
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from datetime import UTC, datetime, timedelta
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.config import get_stream_writer
from pydantic import BaseModel, ValidationError

from app.agent.audit import audit
from app.agent.events import ErrorEvent, PermissionDeniedEvent
from app.agent.state import AgentContext, AgentState, PendingCall
from app.policy import (
    alternatives_for,
    build_confirmation_contract_v2,
    enforce_tool_permission,
    tool_risk,
)
from app.settings import get_settings
from app.store import confirmations, maintenance
from app.store.cot import cot_logger
from app.store.db import session_scope

NO_MAINTENANCE_CHECK = frozenset({"end_maintenance", "start_maintenance"})


def emit(event: BaseModel) -> None:
    get_stream_writer()(event.model_dump(mode="json"))


def args_hash(tool_name: str, tool_args: dict[str, Any], env_id: str | None) -> str:
    blob = json.dumps([tool_name, tool_args, env_id], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def _tool_message(text: str, call: dict[str, Any]) -> ToolMessage:
    return ToolMessage(content=text, tool_call_id=call["id"], name=call["name"])


def _active_maintenance(env_id: str) -> Any:
    with session_scope() as s:
        row = maintenance.active_for(s, env_id=env_id)
        return None if row is None else {"reason": row.reason, "by": row.started_by}


def _new_confirmation(**fields: Any) -> str:
    with session_scope() as s:
        row = confirmations.create(s, **fields)
        return str(row.id)


class Guard:
    """Holds what the guard needs besides the state: the catalog and optional preflights."""

    def __init__(self, specs: dict[str, Any], preflight: Any = None) -> None:
        self.specs = specs
        self.preflight = preflight  # async (tool_name, args, ctx) -> dict | None

    async def __call__(self, state: AgentState, ctx: AgentContext) -> dict[str, Any]:
        last = state["messages"][-1]
        assert isinstance(last, AIMessage)
        refused: list[ToolMessage] = []
        pending: list[PendingCall] = []
        for call in last.tool_calls:
            outcome = await self._check(call, ctx)
            if isinstance(outcome, ToolMessage):
                refused.append(outcome)
            else:
                pending.append(outcome)
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
        event: BaseModel | None = None,
    ) -> ToolMessage:
        emit(event or ErrorEvent(code=code, message=message, tool_name=call["name"]))
        await audit(
            kind=kind,
            user=ctx.user_id,
            role=ctx.role,
            conv_id=ctx.conv_id,
            tool=call["name"],
            env=env,
            decision=decision,
            reason=message,
            args=call.get("args"),
        )
        return _tool_message(f"{code.upper()}: {message}", call)

    async def _check(self, call: dict[str, Any], ctx: AgentContext) -> PendingCall | ToolMessage:
        name, args = call["name"], dict(call.get("args") or {})
        spec = self.specs.get(name)
        decision = enforce_tool_permission(name, ctx.role)
        if spec is None or decision.outcome == "error":
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
            alts = alternatives_for(ctx.role, ctx.object_type, exclude={name})
            msg = f"'{name}' requires the {required} role; your role is {ctx.role}."
            cot_logger.explore("permission denied", tool=name, role=ctx.role, required=required)
            ev = PermissionDeniedEvent(
                tool_name=name, required_role=required, alternatives=alts, message=msg
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
            args = spec.args_model.model_validate(args).model_dump(mode="json")
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
        contract = build_confirmation_contract_v2(name, args, ctx.role, ctx.selected_env)
        env_id = contract.get("env_id")
        risk = tool_risk(name, args)
        if risk != "read" and name not in NO_MAINTENANCE_CHECK and env_id:
            active = await asyncio.to_thread(_active_maintenance, env_id)
            if active:
                why = f": {active['reason']}" if active.get("reason") else ""
                return await self._refuse(
                    call,
                    ctx,
                    kind="maintenance_refused",
                    code="maintenance",
                    env=env_id,
                    message=f"environment '{env_id}' is in a maintenance window{why}; "
                    "write tools are refused until it ends",
                )
        return await self._pending(call, ctx, spec, args, contract, risk)

    async def _pending(
        self,
        call: dict[str, Any],
        ctx: AgentContext,
        spec: Any,
        args: dict[str, Any],
        contract: dict[str, Any],
        risk: str,
    ) -> PendingCall | ToolMessage:
        settings = get_settings()
        name, env_id = call["name"], contract.get("env_id")
        p: PendingCall = {
            "call_id": call["id"],
            "tool_name": name,
            "tool_args": args,
            "env_id": env_id,
            "risk": risk,
            "risk_level": contract["risk_level"],
            "read_only": risk == "read",
            "needs_confirmation": bool(contract.get("requires_confirmation")),
            "confirmation_id": None,
            "decision": None,
            "reason": None,
        }
        if not p["needs_confirmation"]:
            p["decision"] = "confirm"
            return p
        metadata = {k: v for k, v in contract.items() if k != "requires_confirmation"}
        if self.preflight is not None:
            try:
                details = await self.preflight(name, args, ctx)
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
        now = datetime.now(UTC)
        expires = now + timedelta(seconds=settings.confirmation_ttl_s)
        countdown = settings.dangerous_countdown_s if contract.get("dangerous") else 0
        cid = await asyncio.to_thread(
            _new_confirmation,
            conv_id=ctx.conv_id,
            user_id=ctx.user_id,
            tool_name=name,
            call_id=call["id"],
            args_hash=args_hash(name, args, env_id),
            env_id=env_id,
            risk_level=contract["risk_level"],
            expires_at=expires,
        )
        await audit(
            kind="confirm_requested",
            user=ctx.user_id,
            role=ctx.role,
            conv_id=ctx.conv_id,
            tool=name,
            env=env_id,
            decision="confirm",
            reason=contract["risk_level"],
            args=args,
        )
        p.update(
            confirmation_id=cid,
            metadata=metadata,
            countdown_s=countdown,
            expires_at=expires.isoformat(),
        )
        return p
