"""The tools node: runs confirmed calls through execute_with_timeout(retry_read_tool(...)),
summarises results, emits tool events and writes an audit row per outcome. A denied call
becomes a cancelled tool result that the model answers ("Operation cancelled").
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from langchain_core.messages import ToolMessage

from app.agent.audit import audit
from app.agent.events import (
    ToolEndEvent,
    ToolProgressEvent,
    ToolRetryEvent,
    ToolStartEvent,
    ToolTimeoutEvent,
)
from app.agent.execution import execute_with_timeout, retry_read_tool, summarise_response
from app.agent.state import AgentContext, AgentState, PendingCall
from app.agent.stream import emit
from app.errors import ToolError, ToolTimeoutError
from app.settings import get_settings

log = logging.getLogger("ss_tools.agent")

#: Tools that run as rows in the task table; the seam allocates their task id up front.
LONG_TASK_TOOLS = frozenset(
    {"execute_migration", "run_backup", "restore_backup", "delete_dashboard", "deploy_dashboard"}
)
LONG_TASK_TIMEOUT_S = 600.0
EVENT_RESULT_LIMIT = 4000

ToolFn = Callable[[Any, Any], Awaitable[Any]]
DepsFactory = Callable[..., Any]


def effective_timeout(spec: Any, tool_name: str) -> float:
    """The spec's timeout (policy file may set it); the setting shortens or lengthens the
    default 30 s; long-task tools wait for their task (600 s unless the policy says)."""
    settings = get_settings()
    spec_t = float(getattr(spec, "timeout_s", 30.0) or 30.0)
    if spec_t != 30.0:
        return spec_t
    if tool_name in LONG_TASK_TOOLS and settings.tool_timeout_s == 30.0:
        return LONG_TASK_TIMEOUT_S
    return settings.tool_timeout_s


def _as_text(result: Any) -> str:
    if isinstance(result, str):
        return result
    return json.dumps(result, ensure_ascii=False, default=str)


class Executor:
    def __init__(self, specs: dict[str, Any], tools: dict[str, ToolFn], deps_factory: DepsFactory):
        self.specs = specs
        self.tools = tools
        self.deps_factory = deps_factory

    async def __call__(self, state: AgentState, ctx: AgentContext) -> dict[str, Any]:
        out: list[ToolMessage] = []
        for p in state.get("pending") or []:
            if p.get("decision") != "confirm":
                out.append(await self._cancelled(p, ctx))
            else:
                out.append(await self._run(p, ctx))
        return {"messages": out, "pending": []}

    async def _cancelled(self, p: PendingCall, ctx: AgentContext) -> ToolMessage:
        reason = (p.get("reason") or "").strip()
        emit(
            ToolEndEvent(
                call_id=p["call_id"],
                tool_name=p["tool_name"],
                status="cancelled",
                result="cancelled by the user" + (f": {reason}" if reason else ""),
            )
        )
        return ToolMessage(
            content="CANCELLED:" + (f" {reason}" if reason else ""),
            tool_call_id=p["call_id"],
            name=p["tool_name"],
        )

    async def _run(self, p: PendingCall, ctx: AgentContext) -> ToolMessage:
        name, call_id = p["tool_name"], p["call_id"]
        spec = self.specs[name]
        fn = self.tools.get(name)
        read_only = bool(p.get("read_only"))
        timeout = effective_timeout(spec, name)
        task_id = uuid.uuid4().hex if name in LONG_TASK_TOOLS else None
        audit_base = dict(
            user=ctx.user_id,
            role=ctx.role,
            conv_id=ctx.conv_id,
            tool=name,
            env=p.get("env_id"),
            args=p.get("tool_args"),
        )
        emit(
            ToolStartEvent(
                call_id=call_id,
                tool_name=name,
                tool_args=p.get("tool_args") or {},
                is_write_tool=not read_only,
                timeout_s=timeout,
                task_id=task_id,
            )
        )
        started = time.perf_counter()

        def elapsed() -> float:
            return round((time.perf_counter() - started) * 1000, 1)

        if fn is None:
            return await self._failed(
                p,
                ctx,
                audit_base,
                elapsed(),
                task_id,
                ToolError(f"tool '{name}' has no implementation"),
            )

        async def on_retry(attempt: int, error: BaseException) -> None:
            emit(ToolRetryEvent(call_id=call_id, tool_name=name, attempt=attempt, error=str(error)))
            await audit(kind="retried", decision="error", reason=str(error), **audit_base)

        async def progress(step: int, total: int, message: str = "") -> None:
            if task_id:
                emit(
                    ToolProgressEvent(
                        call_id=call_id,
                        tool_name=name,
                        task_id=task_id,
                        step=step,
                        total=total,
                        message=message,
                    )
                )

        args_obj = spec.args_model.model_validate(p.get("tool_args") or {})
        deps = self.deps_factory(ctx=ctx, task_id=task_id, progress=progress)

        async def run() -> Any:
            return await retry_read_tool(fn, args_obj, deps, read_only=read_only, on_retry=on_retry)

        try:
            result = await execute_with_timeout(run, is_write=not read_only, timeout_s=timeout)
        except ToolTimeoutError as exc:
            d = exc.details
            emit(
                ToolTimeoutEvent(
                    call_id=call_id,
                    tool_name=name,
                    timeout_s=timeout,
                    retryable=bool(d.get("retryable", read_only)),
                    status_unknown=bool(d.get("status_unknown", not read_only)),
                    message=str(exc),
                )
            )
            await audit(
                kind="timeout",
                decision="error",
                reason=str(exc),
                duration_ms=elapsed(),
                **audit_base,
            )
            return ToolMessage(content=f"ERROR: {exc}", tool_call_id=call_id, name=name)
        except ToolError as exc:
            return await self._failed(p, ctx, audit_base, elapsed(), task_id, exc)
        except Exception as exc:  # a bug in a tool: logged with trace, user sees no trace
            log.exception("tool %s crashed", name)
            return await self._failed(
                p,
                ctx,
                audit_base,
                elapsed(),
                task_id,
                ToolError(f"internal error in {name} ({type(exc).__name__})"),
            )
        text = summarise_response(_as_text(result), get_settings().summarise_limit)
        emit(
            ToolEndEvent(
                call_id=call_id,
                tool_name=name,
                status="completed",
                result=text[:EVENT_RESULT_LIMIT],
                task_id=task_id,
                duration_ms=elapsed(),
            )
        )
        await audit(kind="executed", decision="ok", duration_ms=elapsed(), **audit_base)
        return ToolMessage(content=text, tool_call_id=call_id, name=name)

    async def _failed(
        self,
        p: PendingCall,
        ctx: AgentContext,
        audit_base: dict[str, Any],
        ms: float,
        task_id: str | None,
        exc: ToolError,
    ) -> ToolMessage:
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
        await audit(kind="failed", decision="error", reason=str(exc), duration_ms=ms, **audit_base)
        return ToolMessage(content=f"ERROR: {exc}", tool_call_id=p["call_id"], name=p["tool_name"])
