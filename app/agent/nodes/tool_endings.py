"""How a call the tool node ran ends when it does not complete: past its timeout
(:func:`timed_out`: a write's status is unknown, so the way on is to check it), refused by
Superset for the person (:func:`refused`: a typed refusal with its way on), or failed
(:func:`failed`); and what a completed call keeps in the checkpoint beside its result
(:func:`artifact_of`). Each ending emits its events and writes its audit row.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage

from app.agent.acting import offers_of, refusal_of
from app.agent.audit import AuditWriter
from app.agent.offers import check_status, choices
from app.agent.state import AgentContext, PendingCall, emit
from app.agent.turn_limits import RAN_KEY, ran_with
from app.agent.undo import ARTIFACT_KEY
from app.errors import SupersetRefused, ToolError, ToolTimeoutError
from app.events import ErrorEvent, Offer, ToolEndEvent, ToolTimeoutEvent
from app.policy import Policy
from app.superset.registry import EnvironmentRegistry
from app.tools.kit import Tool
from app.views import ToolView


async def timed_out(
    audit: AuditWriter,
    p: PendingCall,
    ctx: AgentContext,
    policy: Policy,
    audit_base: dict[str, Any],
    ms: float,
    task_id: str | None,
    exc: ToolTimeoutError,
    timeout: float,
) -> ToolMessage:
    """A call past its timeout: a read may be retried; a write may have happened, so its
    status is unknown and the way on is to check it (by its task when it has one)."""
    name, call_id, read_only = p["tool_name"], p["call_id"], bool(p.get("read_only"))
    d = exc.details
    unknown = bool(d.get("status_unknown", not read_only))
    offers = []
    if unknown:  # a write may have happened: its status, by its task when it has one
        offers = [check_status(policy, task_id, name, ctx.object_type, ctx.lang)]
    emit(
        ToolTimeoutEvent(
            call_id=call_id,
            tool_name=name,
            timeout_s=timeout,
            retryable=bool(d.get("retryable", read_only)),
            status_unknown=unknown,
            message=str(exc),
            offers=offers,
        )
    )
    await audit.record(
        kind="timeout", decision="error", reason=str(exc), duration_ms=ms, **audit_base
    )
    return ToolMessage(content=f"ERROR: {exc}", tool_call_id=call_id, name=name)


async def refused(
    audit: AuditWriter,
    registry: EnvironmentRegistry | None,
    p: PendingCall,
    ctx: AgentContext,
    audit_base: dict[str, Any],
    ms: float,
    task_id: str | None,
    exc: SupersetRefused,
) -> ToolMessage:
    """A call Superset refused for the person (or whose link ended while it ran): the
    card ends failed, the refusal is a typed fact with its way on, never a fallback."""
    refusal = refusal_of(p["tool_name"], p.get("tool_args") or {}, exc)
    emit(
        ToolEndEvent(
            call_id=p["call_id"], tool_name=p["tool_name"], status="failed",
            error=exc.message, task_id=task_id, duration_ms=ms,
        )
    )  # fmt: skip
    emit(
        ErrorEvent(
            code=refusal.code, message=refusal.message, tool_name=p["tool_name"],
            refusal=refusal, offers=offers_of(registry, exc, ctx.lang),
        )
    )  # fmt: skip
    row = {**audit_base, "superset_user": exc.account or audit_base.get("superset_user")}
    await audit.record(
        kind="superset_refused", decision="deny", reason=exc.message, duration_ms=ms, **row
    )
    return ToolMessage(
        content=refusal.tool_result(), tool_call_id=p["call_id"], name=p["tool_name"]
    )


async def failed(
    audit: AuditWriter,
    p: PendingCall,
    ctx: AgentContext,
    audit_base: dict[str, Any],
    ms: float,
    task_id: str | None,
    exc: ToolError,
) -> ToolMessage:
    """A call that failed (its tool's error, or a bug in it: no trace shown): the card
    ends failed, retryable when a read's error says so."""
    read_only = bool(p.get("read_only"))
    emit(
        ToolEndEvent(
            call_id=p["call_id"],
            tool_name=p["tool_name"],
            status="failed",
            error=str(exc),
            retryable=read_only and exc.retryable,
            retry_exhausted=exc.retry_exhausted,
            task_id=task_id,
            duration_ms=ms,
        )
    )
    await audit.record(
        kind="failed", decision="error", reason=str(exc), duration_ms=ms, **audit_base
    )
    return ToolMessage(content=f"ERROR: {exc}", tool_call_id=p["call_id"], name=p["tool_name"])


def artifact_of(
    view: ToolView | None,
    offers: list[Offer],
    decl: Tool,
    args: Any,
    result: Any,
    lang: str,
    env_id: str | None,
) -> dict[str, Any]:
    """What rides along with a completed call's result in the checkpoint (never sent to a
    model): its view (a restored page shows it again), its offers (shown on the card, not
    the answer), a lookup's candidates (the run offers them as choices when the model
    answers right after: ``app.agent.offers``), how it ran (arguments and environment; the guard
    refuses asking for them again in the turn: ``app.agent.turn_limits.ran_with``)."""
    artifact: dict[str, Any] = {RAN_KEY: ran_with(args, result, env_id)}
    if view is not None:
        artifact["view"] = view.model_dump(mode="json")
    if offers:  # apart from a lookup's choices: shown on the card, not the answer
        artifact[ARTIFACT_KEY] = [o.model_dump(mode="json") for o in offers]
    if decl.choices is not None:
        picks = choices(decl.choices(args, result, lang))
        if picks:
            artifact["offers"] = [o.model_dump(mode="json") for o in picks]
    return artifact
