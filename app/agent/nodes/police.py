"""The guard's per-call policy (:meth:`Police.police`): every proposed tool call goes
guard -> (confirmation) -> execute, with an audit row at each step. Nodes emit event
objects (``app.agent.state.emit``); the core numbers them.

Guard order for one call:
  unknown tool           -> error event, never executed
  enforce_tool_permission -> permission_denied event with alternatives (never a confirmation)
  not in this turn's set  -> error "tool not available in this context" (context exclusion)
  invalid arguments       -> error event (a read whose only fault is argument names it
                             does not have runs without them: ``app.agent.model_mistakes``)
  the call's environment  -> resolved ONCE (the tool's resolve_target hook, then
                             app.policy.resolve_env); the card names it, the tool runs on it
  maintenance window      -> refused with reason ``maintenance`` (writes; not exempt:
                             ``app.agent.call_checks``)
  the Superset account    -> the person's own on a person/assertion environment (both ends
                             of a cross-environment tool): refused ``account_not_linked`` /
                             ``link_expired`` with a way to connect it (``app.agent.acting``)
  build_confirmation_contract_v2 -> safe: run; guarded/dangerous: interrupt for a person
                             (the card says whether it can be undone: app.policy.undo)

The guard node (``app.agent.nodes.guard``) runs every call of a reply through it; an
answered confirmation passes it again (``app.agent.nodes.confirm``). The policy and the
environment table are read per call (``policy()``/``envs()``), so a changed policy file
applies to the next call. The guard's I/O (the maintenance table, confirmation rows,
audit rows) goes through the parts the core hands it.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Mapping
from dataclasses import KW_ONLY, dataclass
from typing import Any

from langchain_core.messages import ToolMessage
from pydantic import ValidationError

from app.agent.acting import accounts_for, offers_of, refusal_of, superset_envs
from app.agent.audit import AuditWriter
from app.agent.call_checks import exempt_from_maintenance
from app.agent.model_mistakes import audit_leniency, read_leniently
from app.agent.names import card_names, page_names
from app.agent.nodes.checked import Checked, PreflightOverride, call_env, checked_call, rated
from app.agent.nodes.refuse import refuse
from app.agent.nodes.tool_deps import DepsFactory
from app.agent.offers import without_context
from app.agent.state import AgentContext
from app.errors import SupersetRefused, ToolError
from app.facts import Alternative, Refusal, RefusalCode
from app.policy import EnvChoice, EnvTable, Policy, alternatives_for, enforce_tool_permission
from app.reasoning import cot_logger
from app.store import maintenance
from app.store.db import Database
from app.superset.registry import EnvironmentRegistry
from app.tools.kit import Tool


def active_maintenance(db: Database, env_id: str) -> Any:
    """The maintenance window open on ``env_id`` now (its reason and who opened it), if any."""
    with db.session() as s:
        row = maintenance.active_for(s, env_id=env_id)
        return None if row is None else {"reason": row.reason, "by": row.started_by}


@dataclass(eq=False)
class Police:
    """What the per-call policy needs besides the call: the declarations, the policy and
    the environment table in force, the deps factory (for the tools' hooks), the database
    (maintenance windows), the audit writer and an optional preflight override."""

    tools: Mapping[str, Tool]
    _: KW_ONLY
    policy: Callable[[], Policy]
    envs: Callable[[], EnvTable]
    deps_factory: DepsFactory
    db: Database
    audit: AuditWriter
    preflight: PreflightOverride | None = None
    undo_days: int = 7  # how long an undoable call's change can be undone (its card says)
    registry: EnvironmentRegistry | None = None  # None: no Superset account is checked

    async def police(
        self, call: dict[str, Any], ctx: AgentContext, *, preflight: bool = True
    ) -> Checked | ToolMessage:
        """The per-call policy, in the module docstring's order: a refusal (a ToolMessage,
        already emitted and audited) or the checked call with its contract and card data.
        It opens no confirmation: the guard does for a new call; an answer compares first
        (``app.agent.nodes.confirm``). ``preflight=False`` skips the preflight (an unedited answer:
        its card already showed it)."""
        name, raw = call["name"], dict(call.get("args") or {})
        policy = self.policy()
        decl = self.tools.get(name)
        decision = enforce_tool_permission(name, ctx.role, policy=policy)

        def refusal(code: RefusalCode, message: str, **facts: Any) -> Refusal:
            return Refusal(code=code, tool_name=name, message=message, args=raw, **facts)

        if decl is None or decision.outcome == "error":
            offered = sorted(ctx.allowed_tools)
            return await refuse(
                self.audit,
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
            return await refuse(
                self.audit,
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
            return await not_available(
                self.audit, call, ctx, decl, raw, policy, self.envs(), refusal
            )
        note = ""
        try:
            model = decl.spec.args_model.model_validate(raw)
        except ValidationError as exc:
            lenient = read_leniently(policy.spec(name), decl.spec.args_model, raw, exc)
            if lenient is None:
                errors = [
                    f"{'.'.join(map(str, e['loc'])) or 'args'}: {e['msg']}"
                    for e in exc.errors()[:5]
                ]
                return await refuse(
                    self.audit,
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
            model, note = lenient.args, lenient.note()
            await audit_leniency(self.audit, ctx, name, raw, lenient)
        args = model.model_dump(mode="json")
        envs = self.envs()
        target = None
        if decl.resolve_target is not None:
            page, _ = call_env(args, ctx, envs)
            try:
                target = await decl.resolve_target(model, self._deps(ctx, page, None, policy))
            except ToolError as exc:
                return await refuse(
                    self.audit,
                    call, ctx, refusal("invalid_arguments", str(exc), errors=[str(exc)]),
                    kind="failed", decision="error",
                )  # fmt: skip
        env, selected = call_env(args, ctx, envs, target)
        risk, contract = await rated(name, args, ctx, policy, envs, env)
        deps = functools.partial(self._deps, ctx, env, None, policy)  # made if the hook asks
        if risk != "read" and env.env_id and not await exempt_from_maintenance(decl, model, deps):
            active = await asyncio.to_thread(active_maintenance, self.db, env.env_id)
            if active:
                why = f": {active['reason']}" if active.get("reason") else ""
                return await refuse(
                    self.audit,
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
        checked = await checked_call(
            call, ctx, decl, model, contract, risk, env, selected, policy,
            deps=self._deps(ctx, env, selected, policy), audit=self.audit,
            undo_days=self.undo_days, override=self.preflight, preflight=preflight,
        )  # fmt: skip
        if isinstance(checked, Checked):
            checked.call["accounts"] = acting
            if note:  # the model reads what was left out
                checked.call["note"] = note
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
            return await refuse(
                self.audit, call, ctx, refusal, kind="account_refused", offers=offers
            )

    def _deps(self, ctx: AgentContext, env: EnvChoice, selected: str | None, policy: Policy) -> Any:
        return self.deps_factory(
            ctx=ctx, env_id=env.env_id, env_source=env.source, selected_env=selected,
            policy=policy, task_id=None, progress=None,
        )  # fmt: skip


async def not_available(
    audit: AuditWriter,
    call: dict[str, Any],
    ctx: AgentContext,
    decl: Tool,
    raw: dict[str, Any],
    policy: Policy,
    envs: EnvTable,
    refusal: Callable[..., Refusal],
) -> ToolMessage:
    """The page's context leaves the tool out: refused, with the way forward (the same
    call with the object and the environment spelled out, made without the context)."""
    name = call["name"]
    page = ctx.object_type or "this"
    env, page_env = call_env(raw, ctx, envs)
    spelled = dict(raw)
    if env.env_id and "env_id" in decl.spec.args_model.model_fields:
        spelled.setdefault("env_id", env.env_id)
    known = page_names(ctx.uicontext, page_env)
    names = card_names(spelled, env.env_id, page_env, known)
    offer = without_context(policy, name, spelled, env.env_id, ctx.lang, names)
    return await refuse(
        audit,
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
