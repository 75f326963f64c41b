"""The policy seam: every proposed tool call goes guard -> (confirmation) -> execute, with an
audit row at each step. Nodes emit event objects (``app.agent.state.emit``); the core
numbers them.

Guard order for one call:
  unknown tool           -> error event, never executed
  enforce_tool_permission -> permission_denied event with alternatives (never a confirmation)
  not in this turn's set  -> error "tool not available in this context" (context exclusion)
  invalid arguments       -> error event
  the call's environment  -> resolved ONCE (the tool's resolve_target hook, then
                             app.policy.resolve_env); the card names it, the tool runs on it
  maintenance window      -> refused with reason ``maintenance`` (writes; not exempt:
                             ``app.agent.call_checks``)
  the Superset account    -> the person's own on a person/assertion environment (both ends
                             of a cross-environment tool): refused ``account_not_linked`` /
                             ``link_expired`` with a way to connect it (``app.agent.acting``)
  build_confirmation_contract_v2 -> safe: run; guarded/dangerous: interrupt for a person
                             (the card says whether it can be undone: app.policy.undo)

The policy and the environment table are read per call (``policy()``/``envs()``), so a
changed policy file applies to the next call. The guard's I/O (the maintenance table,
confirmation rows, audit rows) goes through the parts the core hands it.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import KW_ONLY, dataclass
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from pydantic import BaseModel, ValidationError

from app.agent.acting import accounts_for, offers_of, refusal_of, superset_envs
from app.agent.audit import AuditWriter
from app.agent.call_checks import card_of, exempt_from_maintenance, stated_refusal
from app.agent.confirmation import Confirmations
from app.agent.model_step import this_turn
from app.agent.names import (
    KnownNames,
    card_names,
    learnt,
    named_line,
    page_names,
    to_state,
)
from app.agent.offers import without_context
from app.agent.state import AgentContext, AgentState, PendingCall, call_row, emit
from app.cpu import off_loop
from app.errors import CallRefused, SupersetRefused, ToolError
from app.events import BaseEvent, ErrorEvent, Offer, PermissionDeniedEvent
from app.facts import Alternative, Refusal, RefusalCode
from app.policy import (
    EnvChoice,
    EnvTable,
    Policy,
    alternatives_for,
    build_confirmation_contract_v2,
    enforce_tool_permission,
    resolve_env,
    tool_risk,
)
from app.policy.undo import undo_note
from app.reasoning import cot_logger
from app.store import maintenance
from app.store.db import Database
from app.superset.registry import EnvironmentRegistry
from app.tools.kit import Tool

#: Builds a call's ToolDeps:
#: (*, ctx, env_id, env_source, selected_env, policy, task_id, progress) -> ToolDeps.
DepsFactory = Callable[..., Any]
#: Replaces every declaration's preflight (tests): async (tool_name, args, deps) -> details.
PreflightOverride = Callable[[str, BaseModel, Any], Awaitable[dict[str, Any] | None]]


def _tool_message(text: str, call: dict[str, Any]) -> ToolMessage:
    return ToolMessage(content=text, tool_call_id=call["id"], name=call["name"])


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


def _active_maintenance(db: Database, env_id: str) -> Any:
    with db.session() as s:
        row = maintenance.active_for(s, env_id=env_id)
        return None if row is None else {"reason": row.reason, "by": row.started_by}


def _calls(message: Any) -> list[Any]:
    return list(message.tool_calls) if isinstance(message, AIMessage) else []


def _call_key(call: Mapping[str, Any]) -> str:
    """A call's identity in a turn: its tool and its arguments."""
    return json.dumps([call["name"], call.get("args") or {}], sort_keys=True, default=str)


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

    tools: Mapping[str, Tool]
    _: KW_ONLY
    policy: Callable[[], Policy]
    envs: Callable[[], EnvTable]
    deps_factory: DepsFactory
    db: Database
    confirmations: Confirmations
    audit: AuditWriter
    preflight: PreflightOverride | None = None
    undo_days: int = 7  # how long an undoable call's change can be undone (its card says)
    registry: EnvironmentRegistry | None = None  # None: no Superset account is checked

    async def open(
        self, checked: Checked, ctx: AgentContext, known: KnownNames | None = None
    ) -> None:
        """Ask a person: a new single-use confirmation bound to the checked call. Its card
        names the objects as the person knows them (the page's context, and ``known``: the
        names this turn's results gave; ``app.agent.names``)."""
        spec = self.policy().spec(checked.call["tool_name"])
        line = named_line(spec, checked.call, ctx.uicontext, ctx.lang, known or {})
        if line is not None:
            checked.contract["description"] = checked.metadata["description"] = line
        await self.confirmations.open(checked.call, ctx, checked.contract, checked.metadata)

    async def __call__(self, state: AgentState, ctx: AgentContext) -> dict[str, Any]:
        last = state["messages"][-1]
        assert isinstance(last, AIMessage)
        refused: list[ToolMessage] = []
        pending: list[PendingCall] = []
        # the calls made before ``last`` in this run (a door's direct call starts a run)
        turn = this_turn(state["messages"])
        made = {_call_key(c) for m in turn[:-1] for c in _calls(m)}
        # the names a person knows objects by (cards and ways on; kept with the conversation)
        known = learnt(state.get("names"), ctx.uicontext, ctx.selected_env, turn)
        for call in last.tool_calls:
            key = _call_key(call)
            if key in made:  # the same call again in one turn: a loop, never run twice
                refused.append(await self._repeated(dict(call), ctx))
                continue
            made.add(key)
            outcome = await self.police(dict(call), ctx)
            if isinstance(outcome, ToolMessage):
                refused.append(outcome)
                continue
            if outcome.call["needs_confirmation"]:
                await self.open(outcome, ctx, known)
            pending.append(outcome.call)
        names = to_state(known)
        if names != (state.get("names") or {}):
            return {"messages": refused, "pending": pending, "names": names}
        return {"messages": refused, "pending": pending}

    async def _repeated(self, call: dict[str, Any], ctx: AgentContext) -> ToolMessage:
        refusal = Refusal(
            code="repeated_call",
            tool_name=call["name"],
            message=f"{call['name']} was already called with these arguments in this turn",
            args=dict(call.get("args") or {}),
        )
        return await self._refuse(call, ctx, refusal, kind="not_available", decision="error")

    async def _refuse(
        self,
        call: dict[str, Any],
        ctx: AgentContext,
        refusal: Refusal,
        *,
        kind: str,
        decision: str = "deny",
        offers: list[Offer] | None = None,
    ) -> ToolMessage:
        """Say no to ``call``: the event (``permission_denied``, or an ``error`` carrying
        the refusal), the audit row, and the call's result the model reads."""
        if refusal.code == "permission_denied":
            event: BaseEvent = PermissionDeniedEvent(
                tool_name=refusal.tool_name,
                required_role=refusal.required_role or "admin",
                alternatives=refusal.alternatives,
                message=refusal.message,
                refusal=refusal,
            )
        else:
            event = ErrorEvent(
                code=refusal.code,
                message=refusal.message,
                tool_name=refusal.tool_name,
                refusal=refusal,
                offers=offers or [],
            )
        emit(event)
        await self.audit.record(
            kind=kind,
            decision=decision,
            reason=refusal.message,
            args=call.get("args"),
            superset_user=refusal.account,
            **call_row(ctx, call["name"], refusal.env_id),
        )
        return _tool_message(refusal.tool_result(), call)

    async def police(
        self, call: dict[str, Any], ctx: AgentContext, *, preflight: bool = True
    ) -> Checked | ToolMessage:
        """The per-call policy, in the module docstring's order: a refusal (a ToolMessage,
        already emitted and audited) or the checked call with its contract and card data.
        It opens no confirmation: the guard does for a new call; an answer compares first
        (``app.agent.recheck``). ``preflight=False`` skips the preflight (an unedited answer:
        its card already showed it)."""
        name, raw = call["name"], dict(call.get("args") or {})
        policy = self.policy()
        decl = self.tools.get(name)
        decision = enforce_tool_permission(name, ctx.role, policy=policy)

        def refusal(code: RefusalCode, message: str, **facts: Any) -> Refusal:
            return Refusal(code=code, tool_name=name, message=message, args=raw, **facts)

        if decl is None or decision.outcome == "error":
            offered = sorted(ctx.allowed_tools)
            return await self._refuse(
                call,
                ctx,
                refusal(
                    "unknown_tool",
                    f"there is no tool named '{name}'; call one of: {', '.join(offered)}",
                    role=ctx.role,
                    tools=offered,
                ),
                kind="not_available",
                decision="error",
            )
        if decision.outcome == "deny":
            required = decision.required_role or "admin"
            alts = alternatives_for(
                ctx.role, ctx.object_type, exclude={name}, policy=policy, lang=ctx.lang
            )
            cot_logger.explore("permission denied", tool=name, role=ctx.role, required=required)
            return await self._refuse(
                call,
                ctx,
                refusal(
                    "permission_denied",
                    f"'{name}' requires the {required} role; your role is {ctx.role}.",
                    role=ctx.role,
                    required_role=required,
                    page=ctx.object_type,
                    alternatives=[Alternative(**a) for a in alts],
                ),
                kind="permission_denied",
            )
        if name not in ctx.allowed_tools:
            return await self._not_available(call, ctx, decl, raw, policy, refusal)
        try:
            model = decl.spec.args_model.model_validate(raw)
        except ValidationError as exc:
            errors = [
                f"{'.'.join(map(str, e['loc'])) or 'args'}: {e['msg']}" for e in exc.errors()[:5]
            ]
            return await self._refuse(
                call,
                ctx,
                refusal(
                    "invalid_arguments",
                    f"invalid arguments for {name}: {'; '.join(errors)}",
                    errors=errors,
                ),
                kind="failed",
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
                    call, ctx, refusal("invalid_arguments", str(exc), errors=[str(exc)]),
                    kind="failed", decision="error",
                )  # fmt: skip
        env, selected = call_env(args, ctx, envs, target)
        risk, contract = await _rated(name, args, ctx, policy, envs, env)
        deps = functools.partial(self._deps, ctx, env, None, policy)  # made if the hook asks
        if risk != "read" and env.env_id and not await exempt_from_maintenance(decl, model, deps):
            active = await asyncio.to_thread(_active_maintenance, self.db, env.env_id)
            if active:
                why = f": {active['reason']}" if active.get("reason") else ""
                return await self._refuse(
                    call,
                    ctx,
                    refusal(
                        "maintenance",
                        f"environment '{env.env_id}' is in a maintenance window{why}; "
                        "write tools are refused until it ends",
                        env_id=env.env_id,
                        reason=active.get("reason") or None,
                    ),
                    kind="maintenance_refused",
                )
        acting = await self._acting(call, ctx, decl, args, env.env_id, selected)
        if isinstance(acting, ToolMessage):
            return acting
        checked = await self._pending(
            call, ctx, decl, model, contract, risk, env, selected, policy, preflight=preflight
        )
        if isinstance(checked, Checked):
            checked.call["accounts"] = acting
        return checked

    async def _acting(
        self,
        call: dict[str, Any],
        ctx: AgentContext,
        decl: Tool,
        args: dict[str, Any],
        env_id: str | None,
        selected: str | None,
    ) -> dict[str, str] | ToolMessage:
        """The Superset account the call acts as on each environment it signs in to, or
        the refusal (``app.agent.acting``): nothing has reached Superset for the call."""
        if self.registry is None:
            return {}
        spec = decl.spec
        fields = spec.args_model.model_fields
        signs_in = spec.open_world and spec.signs_in
        envs = superset_envs(self.registry, signs_in, fields, args, env_id, selected)
        try:
            return await accounts_for(self.registry, ctx.user_id, envs)
        except SupersetRefused as exc:
            refusal = refusal_of(spec.name, args, exc)
            offers = offers_of(self.registry, exc, ctx.lang)
            return await self._refuse(call, ctx, refusal, kind="account_refused", offers=offers)

    async def _not_available(
        self,
        call: dict[str, Any],
        ctx: AgentContext,
        decl: Tool,
        raw: dict[str, Any],
        policy: Policy,
        refusal: Callable[..., Refusal],
    ) -> ToolMessage:
        """The page's context leaves the tool out: refused, with the way forward (the same
        call with the object and the environment spelled out, made without the context)."""
        name = call["name"]
        page = ctx.object_type or "this"
        env, page_env = call_env(raw, ctx, self.envs())
        spelled = dict(raw)
        if env.env_id and "env_id" in decl.spec.args_model.model_fields:
            spelled.setdefault("env_id", env.env_id)
        known = page_names(ctx.uicontext, page_env)
        names = card_names(spelled, env.env_id, page_env, known)
        offer = without_context(policy, name, spelled, env.env_id, ctx.lang, names)
        return await self._refuse(
            call,
            ctx,
            refusal(
                "not_available",
                f"'{name}' is not offered on a {page} page; the person can continue "
                "without the page's context",
                page=ctx.object_type,
                env_id=env.env_id,
            ),
            kind="not_available",
            offers=[offer],
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
        decl: Tool,
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
        metadata |= undo_note(policy.spec(name), risk, self.undo_days)
        if not p["needs_confirmation"] or not preflight:
            return Checked(p, contract, metadata)
        check = decl.preflight
        if self.preflight is not None:
            check = functools.partial(self.preflight, name)
        if check is not None:
            try:
                details = await check(model, deps)
            except CallRefused as exc:  # the tool's own check said no, with its reason
                refused, kind, decision = stated_refusal(exc, name, p["tool_args"], env_id)
                return await self._refuse(call, ctx, refused, kind=kind, decision=decision)
            except Exception as exc:  # a preflight failure blocks the call, visibly
                why = f"{type(exc).__name__}: {exc}" if not isinstance(exc, ToolError) else str(exc)
                return await self._refuse(
                    call,
                    ctx,
                    Refusal(
                        code="preflight_failed",
                        tool_name=name,
                        message=f"preflight for {name} failed: {why}",
                        args=p["tool_args"],
                        env_id=env_id,
                        errors=[why],
                    ),
                    kind="failed",
                    decision="error",
                )
            if details:
                metadata = card_of(metadata, details)
                if details.get("errors"):
                    errors = [str(e) for e in details["errors"]]
                    return await self._refuse(
                        call,
                        ctx,
                        Refusal(
                            code="preflight_failed",
                            tool_name=name,
                            message="preflight found problems: " + "; ".join(errors),
                            args=p["tool_args"],
                            env_id=env_id,
                            errors=errors,
                        ),
                        kind="failed",
                        decision="error",
                    )
        return Checked(p, contract, metadata)
