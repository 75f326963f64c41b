"""The tool node: runs confirmed calls through execute_with_timeout(retry_read_tool(...)),
summarises results, emits tool events and writes an audit row per outcome. A denied call
becomes a cancelled tool result ("CANCELLED: cancelled by the user: <reason>") that the
model answers. A stop cancels a read in flight; a write runs to its end.

A call runs on the environment the guard resolved (``PendingCall.env_id``, the one the
card named): its ToolDeps carry it. Its timeout is the policy's in force at run time
(``policy.toml`` may set any tool's), else the declaration's (long tasks: 600 s), else
the settings' default.

A write that can be undone leaves an undo plan on its deps: :func:`app.agent.undo.settle`
stores it and puts the ``undo`` offer on the call's result; an undo's own run is linked to
the change it undid by :func:`app.agent.undo.note_undone`.

How a call ends when it does not complete is :mod:`app.agent.nodes.tool_endings`.
A completed call's result for the doors — its data and its view, within the settings'
result caps — is :mod:`app.agent.tool_result` (``tool_data``, ``present``, ``cut_note``).
"""

from __future__ import annotations

import json
import logging
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import KW_ONLY, dataclass
from typing import Any

from langchain_core.messages import ToolMessage
from langgraph.runtime import Runtime

from app.agent.audit import AuditWriter
from app.agent.execution import execute_with_timeout, retry_read_tool, summarise_response
from app.agent.nodes import Node
from app.agent.nodes.tool_deps import DepsFactory
from app.agent.nodes.tool_endings import artifact_of, failed, refused, timed_out
from app.agent.state import (
    AgentContext,
    AgentState,
    PendingCall,
    Stopped,
    call_row,
    cancel_calls,
    cancellable,
    cancelled_call,
    emit,
    is_stopped,
    shielded,
)
from app.agent.tool_result import cut_note, present, tool_data
from app.agent.undo import note_undone, settle
from app.errors import SupersetRefused, ToolError, ToolTimeoutError
from app.events import ToolEndEvent, ToolProgressEvent, ToolRetryEvent, ToolStartEvent
from app.policy import Policy, ToolSpec
from app.settings import Settings
from app.superset.registry import EnvironmentRegistry
from app.tools.kit import Tool, ToolFn

log = logging.getLogger("ss_tools.agent")

EVENT_RESULT_LIMIT = 4000


def effective_timeout(spec: ToolSpec | None, default_s: float) -> float:
    """The timeout of one call: the spec's (a policy file's override, else the
    declaration's: 600 s for long tasks), else ``default_s`` (the settings' default)."""
    if spec is not None and spec.timeout_s is not None:
        return spec.timeout_s
    return default_s


def _as_text(result: Any) -> str:
    if isinstance(result, str):
        return result
    return json.dumps(result, ensure_ascii=False, default=str)


@dataclass(eq=False)
class ToolNode:
    """Runs the confirmed pending calls: ``tools`` are the declarations, ``fns`` optional
    replacements of their functions (tests), ``policy`` the policy in force; ``settings``
    give the default timeout, the retry delay and the summary's size."""

    tools: Mapping[str, Tool]
    _: KW_ONLY
    policy: Callable[[], Policy]
    deps_factory: DepsFactory
    settings: Settings
    audit: AuditWriter
    fns: Mapping[str, ToolFn] | None = None
    registry: EnvironmentRegistry | None = None  # a refusal's way on (connect an account)

    async def __call__(self, state: AgentState, ctx: AgentContext) -> dict[str, Any]:
        out: list[ToolMessage] = []
        for p in state.get("pending") or []:
            if p.get("decision") != "confirm":
                out.append(cancelled_call(p, p.get("reason")))
            else:
                out.append(await self._run(p, ctx))
        return {"messages": out, "pending": []}

    async def _run(self, p: PendingCall, ctx: AgentContext) -> ToolMessage:
        """A stopped turn starts no call; a stop cancels a read in flight; a write is
        shielded: it runs to its end whatever happens to the run (``app.agent.state``: stopping)."""
        if is_stopped(ctx):
            return (await cancel_calls([p], ctx, self.audit))[0]
        work = self._execute(p, ctx)
        if not p.get("read_only"):
            return await shielded(ctx, work, call_id=p["call_id"], tool_name=p["tool_name"])
        try:
            return await cancellable(ctx, work, call_id=p["call_id"])
        except Stopped:
            return (await cancel_calls([p], ctx, self.audit))[0]

    async def _execute(self, p: PendingCall, ctx: AgentContext) -> ToolMessage:
        name, call_id = p["tool_name"], p["call_id"]
        decl = self.tools[name]
        fn = decl.fn if self.fns is None else self.fns.get(name)
        policy = self.policy()
        read_only = bool(p.get("read_only"))
        timeout = effective_timeout(policy.spec(name), self.settings.tool_timeout_s)
        task_id = uuid.uuid4().hex if decl.spec.long_task else None
        audit_base = {**call_row(ctx, name, p.get("env_id")), "args": p.get("tool_args")}
        accounts = sorted(set((p.get("accounts") or {}).values()))
        if accounts:  # the Superset account(s) the call acts as, on each row of its run
            audit_base["superset_user"] = ",".join(accounts)
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

        def fail(exc: ToolError) -> Awaitable[ToolMessage]:
            return failed(self.audit, p, ctx, audit_base, elapsed(), task_id, exc)

        if fn is None:
            return await fail(ToolError(f"tool '{name}' has no implementation"))

        async def on_retry(attempt: int, error: BaseException) -> None:
            emit(ToolRetryEvent(call_id=call_id, tool_name=name, attempt=attempt, error=str(error)))
            await self.audit.record(
                kind="retried", decision="error", reason=str(error), **audit_base
            )

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

        args_obj = decl.spec.args_model.model_validate(p.get("tool_args") or {})
        deps = self.deps_factory(
            ctx=ctx, env_id=p.get("env_id"), env_source=p.get("env_source", "args"),
            selected_env=p.get("selected_env"), policy=policy, task_id=task_id, progress=progress,
        )  # fmt: skip

        async def run() -> Any:
            return await retry_read_tool(
                fn,
                args_obj,
                deps,
                read_only=read_only,
                delay_s=self.settings.retry_delay_s,
                on_retry=on_retry,
            )

        try:
            result = await execute_with_timeout(run, is_write=not read_only, timeout_s=timeout)
        except ToolTimeoutError as exc:
            return await timed_out(
                self.audit, p, ctx, policy, audit_base, elapsed(), task_id, exc, timeout
            )
        except SupersetRefused as exc:  # Superset, or the person's link, said no: typed
            ms = elapsed()
            return await refused(self.audit, self.registry, p, ctx, audit_base, ms, task_id, exc)
        except ToolError as exc:
            return await fail(exc)
        except Exception as exc:  # a bug in a tool: logged with trace, user sees no trace
            log.exception("tool %s crashed", name)
            return await fail(ToolError(f"internal error in {name} ({type(exc).__name__})"))
        days = self.settings.undo_retention_days
        settled = await settle(deps, p, ctx, result, policy, days)
        result = settled.result
        text = summarise_response(_as_text(result), self.settings.summarise_limit)
        caps = self.settings.result_caps()
        view = present(decl, result, deps, p.get("env_id"), caps)
        data, truncated = tool_data(result, caps.max_bytes)
        emit(
            ToolEndEvent(
                call_id=call_id,
                tool_name=name,
                status="completed",
                result=text[:EVENT_RESULT_LIMIT],
                task_id=task_id,
                duration_ms=elapsed(),
                data=data,
                data_truncated=truncated,
                view=view,
                cut_note=cut_note(view, ctx.lang),
                offers=settled.offers,
            )
        )
        await self.audit.record(
            kind="executed", decision="ok", duration_ms=elapsed(), id=settled.audit_id, **audit_base
        )
        await note_undone(self.audit, deps, p, ctx)
        # the view and a lookup's candidates ride along in the checkpoint (never sent to a
        # model): a restored page shows the result presented again
        artifact = artifact_of(
            view, settled.offers, decl, args_obj, result, ctx.lang, p.get("env_id")
        )
        note = p.get("note", "")  # what the model reads first, e.g. arguments the guard dropped
        return ToolMessage(content=note + text, tool_call_id=call_id, name=name, artifact=artifact)


def tools_node(run_tools: ToolNode) -> Node:
    """The graph's tools node: the confirmed calls run, the others cancelled."""

    async def node(state: AgentState, runtime: Runtime[AgentContext]) -> dict[str, Any]:
        return await run_tools(state, runtime.context)

    return node
