"""The agent's front door: ``agent_handler`` and ``resume_handler`` are async generators of
SSE frames, shared by the HTTP stream API and the NiceGUI page (in process).

    agent_handler(message, history, conv_id, user_id, user_jwt, env_id, uicontext_str=None)
    resume_handler(conv_id, user_jwt, confirmation_id, decision, reason=None)
    get_conversation(conv_id, user_jwt) -> dict

With ``uicontext_str=None`` the handler behaves exactly like the plain six-argument one.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage
from langgraph.types import Command
from pydantic import BaseModel

from app.agent.audit import audit, flush_audit
from app.agent.confirm import check_confirmation, mark_sent
from app.agent.events import (
    ConfirmMetadataV2,
    ConfirmRequiredEvent,
    DoneEvent,
    ErrorEvent,
    MessageEvent,
    TokenEvent,
    TurnStartEvent,
    encode_sse,
    parse_event,
)
from app.agent.rules import current_policy
from app.agent.runtime import get_graph, get_model_label
from app.agent.state import AgentContext, TurnInfo
from app.auth import Principal, verify_token
from app.context import validate_uicontext
from app.errors import AuthError, ConfirmationError, SsToolsError, UIContextError
from app.policy import build_tool_pipeline
from app.store.cot import cot_logger

RECURSION_LIMIT = 30
_CYRILLIC = re.compile("[\u0400-\u04ff]")


class Emitter:
    """Numbers events of one stream and encodes them."""

    def __init__(self, conv_id: str) -> None:
        self.conv_id = conv_id
        self.seq = 0

    def __call__(self, event: BaseModel | dict[str, Any]) -> str:
        if isinstance(event, dict):
            event = parse_event(event)
        self.seq += 1
        event = event.model_copy(update={"conv_id": self.conv_id, "seq": self.seq})
        return encode_sse(event)


def detect_lang(text: str) -> str:
    return "ru" if _CYRILLIC.search(text or "") else "en"


def _config(conv_id: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": conv_id}, "recursion_limit": RECURSION_LIMIT}


def _authenticate(user_jwt: str, user_id: str | None = None) -> Principal:
    principal = verify_token(user_jwt)
    if user_id and user_id != principal.user_id:
        raise AuthError("user_id does not match the token's subject")
    return principal


async def _done(em: Emitter, state: str) -> AsyncIterator[str]:
    """The closing events: every audit row of the turn is committed before ``done``."""
    try:
        await flush_audit()
    except Exception as exc:  # the turn happened, but its audit trail is incomplete: say so
        cot_logger.reflect("audit write failed", error=type(exc).__name__)
        yield em(
            ErrorEvent(
                code="audit_failed",
                message="An audit row could not be written; tell an administrator.",
            )
        )
        state = "error"
    yield em(DoneEvent(state=state))  # type: ignore[arg-type]


async def _fail(
    em: Emitter, code: str, message: str, status: int | None = None
) -> AsyncIterator[str]:
    yield em(ErrorEvent(code=code, message=message, status_code=status))
    async for frame in _done(em, "error"):
        yield frame


def build_context(principal: Principal, conv_id: str, turn: TurnInfo, lang: str) -> AgentContext:
    return AgentContext(
        user_id=principal.user_id,
        role=principal.role,
        conv_id=conv_id,
        allowed_tools=list(turn.get("allowed_tools") or []),
        excluded=dict(turn.get("excluded") or {}),
        object_type=turn.get("object_type"),
        selected_env=turn.get("selected_env"),
        uicontext=turn.get("uicontext"),
        lang=lang,
    )


def plan_turn(
    role: str, object_type: str | None, selected_env: str | None, uicontext: dict[str, Any] | None
) -> TurnInfo:
    policy = current_policy()
    result = build_tool_pipeline(
        list(policy.catalog.values()),
        role,
        object_type,
        policy=policy,
        log=lambda msg: cot_logger.reason(msg),
    )
    return TurnInfo(
        object_type=object_type,
        selected_env=selected_env,
        uicontext=uicontext,
        allowed_tools=[t.name for t in result.tools],
        excluded={e.name: e.layer for e in result.excluded},
    )


async def agent_handler(
    message: str,
    history: list[dict[str, Any]] | None,
    conv_id: str,
    user_id: str | None,
    user_jwt: str,
    env_id: str | None,
    uicontext_str: str | dict[str, Any] | None = None,
) -> AsyncIterator[str]:
    em = Emitter(conv_id)
    try:
        principal = _authenticate(user_jwt, user_id)
    except AuthError as exc:
        await audit(
            kind="auth_failed", user=user_id, conv_id=conv_id, decision="deny", reason=str(exc)
        )
        async for frame in _fail(em, "unauthorized", str(exc), 401):
            yield frame
        return
    base = dict(user=principal.user_id, role=principal.role, conv_id=conv_id)
    ctx_obj = None
    if uicontext_str is not None:
        try:
            ctx_obj = validate_uicontext(uicontext_str)
        except UIContextError as exc:
            if exc.status_code == 400:  # not JSON at all: ignored, every allowed tool kept
                await audit(kind="uicontext_ignored", decision="allow", reason=str(exc), **base)
            else:
                await audit(kind="uicontext_invalid", decision="deny", reason=str(exc), **base)
                async for frame in _fail(em, "invalid_uicontext", str(exc), exc.status_code):
                    yield frame
                return
    uictx = ctx_obj.model_dump() if ctx_obj is not None else None
    object_type = ctx_obj.objectType if ctx_obj is not None else None
    selected_env = env_id or (ctx_obj.envId if ctx_obj is not None else None)
    turn = plan_turn(principal.role, object_type, selected_env, uictx)
    lang = detect_lang(message)
    yield em(
        TurnStartEvent(
            model=get_model_label(),
            tools_offered=len(turn["allowed_tools"]),
            object_type=object_type,
            env_id=selected_env,
            lang=lang,
        )
    )
    await audit(
        kind="tool_filtered",
        decision="allow",
        env=selected_env,
        reason=f"{len(turn['allowed_tools'])} tools offered for {object_type or 'no'} context",
        args={"excluded": turn.get("excluded")},
        **base,
    )

    graph = await get_graph()
    config = _config(conv_id)
    state = await _light_state(graph, config)
    values = state.values or {}
    if values.get("owner") and values["owner"] != principal.user_id:
        await audit(kind="auth_failed", decision="deny", reason="foreign conversation", **base)
        async for frame in _fail(em, "forbidden", "this conversation belongs to another user", 403):
            yield frame
        return
    if state.interrupts:  # a new message supersedes a pending confirmation: cancel it
        async for frame in _supersede(graph, state, principal, conv_id, em, lang):
            yield frame
    messages: list[Any] = []
    if not values.get("messages") and history:
        messages += _history_messages(history)
    messages.append(HumanMessage(content=message))
    inp = {"messages": messages, "owner": principal.user_id, "turn": turn, "pending": []}
    ctx = build_context(principal, conv_id, turn, lang)
    async for frame in _run(graph, inp, config, ctx, em):
        yield frame


class _Light:
    """The little of a conversation's state a new turn needs to check first."""

    def __init__(self, values: dict[str, Any], interrupts: tuple[Any, ...] = ()) -> None:
        self.values = values
        self.interrupts = interrupts


async def _light_state(graph: Any, config: dict[str, Any]) -> Any:
    """Owner and pending interrupts of a conversation. Reads the latest checkpoint tuple
    (cheap); only a conversation with pending interrupt writes needs the full state."""
    saver = graph.checkpointer
    if saver is None:
        return await graph.aget_state(config)
    tup = await saver.aget_tuple(config)
    if tup is None:
        return _Light({})
    if any(w[1] == "__interrupt__" for w in tup.pending_writes or ()):
        return await graph.aget_state(config)
    values = tup.checkpoint.get("channel_values") or {}
    return _Light({"owner": values.get("owner"), "messages": values.get("messages") or []})


def _history_messages(history: list[dict[str, Any]]) -> list[Any]:
    out: list[Any] = []
    for item in history:
        text = str(item.get("content") or item.get("text") or "")
        if item.get("role") == "user":
            out.append(HumanMessage(content=text))
        elif item.get("role") == "assistant":
            out.append(AIMessage(content=text))
    return out


async def _supersede(
    graph: Any, state: Any, principal: Principal, conv_id: str, em: Emitter, lang: str
) -> AsyncIterator[str]:
    for intr in state.interrupts:
        cid = (intr.value or {}).get("confirmation_id")
        if cid:
            try:
                await check_confirmation(
                    graph,
                    conv_id=conv_id,
                    principal=principal,
                    confirmation_id=cid,
                    decision="deny",
                    used_as="superseded",
                )
            except ConfirmationError:
                pass  # already consumed or expired: the resume below still cancels the call
        await audit(
            kind="cancelled",
            user=principal.user_id,
            role=principal.role,
            conv_id=conv_id,
            decision="cancel",
            reason="superseded by a new message",
        )
    turn = state.values.get("turn") or {}
    ctx = build_context(principal, conv_id, turn, lang)
    resume = Command(resume={"decision": "deny", "reason": "superseded by a new message"})
    async for frame in _run(graph, resume, _config(conv_id), ctx, em, final=False):
        yield frame
    # several pending interrupts: deny them all
    again = await graph.aget_state(_config(conv_id))
    if again.interrupts:
        async for frame in _supersede(graph, again, principal, conv_id, em, lang):
            yield frame


async def resume_handler(
    conv_id: str,
    user_jwt: str,
    confirmation_id: str,
    decision: str,
    reason: str | None = None,
) -> AsyncIterator[str]:
    em = Emitter(conv_id)
    try:
        principal = _authenticate(user_jwt)
    except AuthError as exc:
        await audit(kind="auth_failed", conv_id=conv_id, decision="deny", reason=str(exc))
        async for frame in _fail(em, "unauthorized", str(exc), 401):
            yield frame
        return
    try:
        row = await prepare_resume(conv_id, principal, confirmation_id, decision)
    except ConfirmationError as exc:
        async for frame in _fail(
            em, f"confirmation_{exc.reason}", str(exc), confirmation_status(exc.reason)
        ):
            yield frame
        return
    async for frame in resume_stream(conv_id, principal, row, decision, reason, em):
        yield frame


async def prepare_resume(
    conv_id: str, principal: Principal, confirmation_id: str, decision: str
) -> dict[str, Any]:
    """Validate and consume the confirmation (raises ConfirmationError, audited)."""
    graph = await get_graph()
    return await check_confirmation(
        graph,
        conv_id=conv_id,
        principal=principal,
        confirmation_id=confirmation_id,
        decision=decision,
    )


async def resume_stream(
    conv_id: str,
    principal: Principal,
    row: dict[str, Any],
    decision: str,
    reason: str | None,
    em: Emitter | None = None,
) -> AsyncIterator[str]:
    em = em or Emitter(conv_id)
    graph = await get_graph()
    state = await graph.aget_state(_config(conv_id))
    turn = state.values.get("turn") or {}
    lang = detect_lang(_last_human_text(state.values.get("messages") or []))
    ctx = build_context(principal, conv_id, turn, lang)
    await audit(
        kind="confirmed" if decision == "confirm" else "cancelled",
        user=principal.user_id,
        role=principal.role,
        conv_id=conv_id,
        tool=row["tool_name"],
        env=row["env_id"],
        decision="confirm" if decision == "confirm" else "cancel",
        reason=reason,
    )
    cmd = Command(resume={"decision": decision, "reason": reason})
    async for frame in _run(graph, cmd, _config(conv_id), ctx, em):
        yield frame


def confirmation_status(reason: str) -> int:
    return {
        "unknown": 404,
        "foreign_user": 403,
        "not_pending": 409,
        "replayed": 409,
        "expired": 410,
        "too_early": 425,
        "mismatch": 409,
    }.get(reason, 400)


def _last_human_text(messages: list[Any]) -> str:
    for m in reversed(messages):
        if isinstance(m, HumanMessage):
            return str(m.content)
    return ""


async def _run(
    graph: Any,
    inp: Any,
    config: dict[str, Any],
    ctx: AgentContext,
    em: Emitter,
    *,
    final: bool = True,
) -> AsyncIterator[str]:
    interrupted = False
    last_ai: AIMessage | None = None
    try:
        async for mode, data in graph.astream(
            inp, config, context=ctx, stream_mode=["messages", "updates", "custom"]
        ):
            if mode == "messages":
                chunk, meta = data
                if (
                    isinstance(chunk, AIMessageChunk)
                    and meta.get("langgraph_node") == "model"
                    and isinstance(chunk.content, str)
                    and chunk.content
                ):
                    yield em(TokenEvent(text=chunk.content))
            elif mode == "custom":
                yield em(data)
            elif mode == "updates":
                if "__interrupt__" in data:
                    interrupted = True
                    for intr in data["__interrupt__"]:
                        yield em(await _confirm_event(intr.value))
                elif isinstance(data.get("model"), dict):
                    replies = data["model"].get("messages") or []
                    last_ai = replies[-1] if replies else last_ai
    except SsToolsError as exc:
        async for frame in _fail(em, "agent_error", str(exc)):
            yield frame
        return
    except Exception as exc:  # model endpoint down, checkpoint store failure...
        cot_logger.reflect("agent run failed", error=type(exc).__name__, conv_id=ctx.conv_id)
        await audit(
            kind="failed",
            user=ctx.user_id,
            role=ctx.role,
            conv_id=ctx.conv_id,
            decision="error",
            reason=f"agent run failed: {type(exc).__name__}",
        )
        async for frame in _fail(
            em, "agent_error", f"The agent could not finish this turn ({type(exc).__name__})."
        ):
            yield frame
        return
    if not final:
        return
    if interrupted:
        async for frame in _done(em, "awaiting_confirmation"):
            yield frame
        return
    if isinstance(last_ai, AIMessage) and not last_ai.tool_calls:
        yield em(MessageEvent(text=str(last_ai.content), model=get_model_label()))
    async for frame in _done(em, "idle"):
        yield frame


async def _confirm_event(value: dict[str, Any]) -> ConfirmRequiredEvent:
    await asyncio.to_thread(mark_sent, value["confirmation_id"])
    return ConfirmRequiredEvent(
        confirmation_id=value["confirmation_id"],
        call_id=value["call_id"],
        metadata=ConfirmMetadataV2.model_validate(value.get("metadata") or {}),
        countdown_s=int(value.get("countdown_s") or 0),
        expires_at=value.get("expires_at", ""),
    )


async def get_conversation(conv_id: str, user_jwt: str) -> dict[str, Any]:
    """Messages and any pending confirmation (for reloads and second tabs)."""
    principal = _authenticate(user_jwt)
    graph = await get_graph()
    state = await graph.aget_state(_config(conv_id))
    values = state.values or {}
    if values.get("owner") and values["owner"] != principal.user_id:
        raise AuthError("this conversation belongs to another user")
    messages: list[dict[str, Any]] = []
    tool_calls: list[dict[str, Any]] = []
    for m in values.get("messages") or []:
        if isinstance(m, HumanMessage):
            messages.append({"role": "user", "text": str(m.content)})
        elif isinstance(m, AIMessage):
            tool_calls += [
                {"call_id": tc["id"], "tool_name": tc["name"], "tool_args": tc["args"]}
                for tc in m.tool_calls
            ]
            if m.content and not m.tool_calls:
                messages.append({"role": "assistant", "text": str(m.content)})
    pending = None
    if state.interrupts:
        value = state.interrupts[0].value
        ev = ConfirmRequiredEvent(
            conv_id=conv_id,
            confirmation_id=value["confirmation_id"],
            call_id=value["call_id"],
            metadata=ConfirmMetadataV2.model_validate(value.get("metadata") or {}),
            countdown_s=int(value.get("countdown_s") or 0),
            expires_at=value.get("expires_at", ""),
        )
        pending = ev.model_dump(mode="json")
    return {
        "conv_id": conv_id,
        "messages": messages,
        "tool_calls": tool_calls,
        "pending_confirmation": pending,
        "turn": {
            k: v
            for k, v in (values.get("turn") or {}).items()
            if k in ("object_type", "selected_env", "uicontext")
        },
    }
