"""What the graph's nodes and the core share of a run: the graph state (checkpointed per
conversation), the per-run context (not checkpointed), how events leave the graph, and
stopping a turn as the nodes see it. Read top to bottom:

**State and context**: :class:`AgentState` (with its :class:`TurnInfo` and
:class:`PendingCall`), :class:`AgentContext`, :func:`call_row` (a call's audit fields).

**How events leave the graph and get their place in a stream**:

* :func:`emit` — the one way a node publishes an event: the event *object* goes through
  LangGraph's custom stream to the core, in process (no dict, no JSON on the way).
* :class:`Sequencer` — stamps ``conv_id`` and the next ``seq`` on each event of one
  stream, so the page (typed events) and the SSE door (encoded events) see the same
  numbering.
* :func:`confirm_required_event` — the one builder of a ``confirm_required`` event from
  the confirm node's interrupt payload (used by the live stream and the conversation
  read model).

**Stopping a turn, as the graph's nodes see it**. A stop never tears the graph
down: the run goes on through its own nodes, so every checkpoint stays consistent (each
AIMessage tool call gets its ToolMessage):

* the model call and a read tool in flight are *jobs* the stop cancels
  (:func:`cancellable`): the model node answers :func:`stopped_reply`, the tool node a
  cancelled result;
* a write in flight is never killed mid-call (:func:`shielded`): it runs to its end, its
  outcome is recorded as usual, and only then does the run finish;
* calls the guard checked but nobody started, and reads a stop cancelled, are cancelled
  results (:func:`cancel_calls`); a stopped run asks no new confirmation.

The run's :class:`RunControlLike` (the core's ``RunControl``) rides on the run context
(``AgentContext.control``); without one (a graph driven directly by a test) nothing stops.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Protocol, TypedDict, TypeVar

from langchain_core.messages import AIMessage, AnyMessage, ToolMessage
from langgraph.config import get_stream_writer
from langgraph.graph.message import add_messages

from app import vocab
from app.agent.audit import AuditWriter
from app.context import UIContext
from app.events import BaseEvent, ConfirmMetadataV2, ConfirmRequiredEvent, ToolEndEvent
from app.facts import Refusal, TurnFacts
from app.i18n import t


class TurnInfo(TypedDict, total=False):
    """What the current turn was asked under; kept so a resume can rebuild the context."""

    object_type: str | None
    selected_env: str | None
    uicontext: dict[str, Any] | None
    allowed_tools: list[str]
    excluded: dict[str, str]  # tool -> layer ('rbac' | 'context')
    lang: str  # the language the turn is said in (a resume answers in it)


class PendingCall(TypedDict, total=False):
    call_id: str
    tool_name: str
    tool_args: dict[str, Any]
    env_id: str | None  # the call's environment: the card names it, the tool runs on it
    env_source: str  # where env_id came from (app.policy.risk.EnvSource)
    selected_env: str | None  # the page's environment (a deploy's omitted source)
    risk: str
    risk_level: str
    read_only: bool
    needs_confirmation: bool
    confirmation_id: str | None
    metadata: dict[str, Any]
    countdown_s: int
    expires_at: str
    decision: str | None  # confirm | deny | edit (confirmed with edited_args, to recheck)
    reason: str | None
    edited_args: dict[str, Any] | None  # a person's edit before approving
    note: str  # what the model reads before the result (arguments the guard dropped)
    accounts: dict[str, str]  # env id -> the Superset account the call acts as (no secret)
    # a second person's approval (app.agent.nodes.approval): pending | approved | denied |
    # withdrawn, the request's id and expiry, and who decided
    approval: str | None
    approval_id: str | None
    approval_expires_at: str
    approval_by: str | None


class AgentState(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    owner: str
    turn: TurnInfo
    pending: list[PendingCall]
    # A door's direct tool call (``app.agent.core.runs.call``): the run started at the guard and
    # ends after the tools, also when it is resumed later (from any door). The model node
    # clears it: a run the model answers is a chat turn again.
    direct: bool
    # The names a person knows the conversation's objects by ("type|env|id" -> name; the
    # guard keeps them for the cards: ``app.agent.names``).
    names: dict[str, str]


@dataclass
class AgentContext:
    """Per-run data the nodes need; rebuilt for every run (LangGraph does not persist it).

    ``uicontext`` is the validated page context (checked once, by prepare_turn);
    ``facts`` are the turn's facts every model reads in its prompt (selected env, the
    environments' tiers); ``channel``/``client`` name the
    door the run came through (every audit row of the run records them); ``control`` is
    the run's stop switch (the core's ``RunControl``; see :class:`RunControlLike`);
    ``approval_id`` names the request a second person decided, when that resumed the run
    (its audit rows name it too)."""

    user_id: str
    role: str
    conv_id: str
    allowed_tools: list[str] = field(default_factory=list)
    excluded: dict[str, str] = field(default_factory=dict)
    object_type: str | None = None
    selected_env: str | None = None
    uicontext: UIContext | None = None
    lang: str = "en"
    facts: TurnFacts = field(default_factory=TurnFacts)
    channel: str = "page"
    client: str | None = None
    control: Any = None
    approval_id: str | None = None  # a run resumed by a second person's decision


def call_row(ctx: AgentContext, tool: str | None, env: str | None) -> dict[str, Any]:
    """An audit row's fields of a call in a run: who asked (user, role), in which
    conversation, which tool on which environment (the door: ``audit_scope``)."""
    return dict(user=ctx.user_id, role=ctx.role, conv_id=ctx.conv_id, tool=tool, env=env)


# ---- how events leave the graph ---------------------------------------------------
E = TypeVar("E", bound=BaseEvent)


def emit(event: BaseEvent) -> None:
    """Publish ``event`` from inside a graph node (the core numbers it)."""
    get_stream_writer()(event)


class Sequencer:
    """Numbers the events of one stream: ``conv_id`` and a monotonic ``seq`` from 1.

    Each event object is fresh and owned by the stream, so it is stamped in place (no
    copy per token)."""

    __slots__ = ("conv_id", "seq")

    def __init__(self, conv_id: str) -> None:
        self.conv_id = conv_id
        self.seq = 0

    def __call__(self, event: E) -> E:
        self.seq += 1
        event.conv_id = self.conv_id
        event.seq = self.seq
        return event


def confirm_required_event(value: Mapping[str, Any], conv_id: str = "") -> ConfirmRequiredEvent:
    """The ``confirm_required`` event for one interrupt payload of the confirm node."""
    return ConfirmRequiredEvent(
        conv_id=conv_id,
        confirmation_id=value["confirmation_id"],
        call_id=value["call_id"],
        metadata=ConfirmMetadataV2.model_validate(value.get("metadata") or {}),
        countdown_s=int(value.get("countdown_s") or 0),
        expires_at=value.get("expires_at", ""),
    )


# ---- stopping a turn, as the nodes see it ------------------------------------------
T = TypeVar("T")

STOPPED_REASON = vocab.STOPPED_REASON


class RunControlLike(Protocol):
    """What a node needs of the run's control."""

    @property
    def stopped(self) -> bool: ...

    def track(
        self, job: asyncio.Future[Any], *, call_id: str = "", tool_name: str = "", write: bool
    ) -> None: ...


class Stopped(Exception):
    """A cancellable job was cancelled by a stop."""


def is_stopped(ctx: AgentContext) -> bool:
    control: RunControlLike | None = ctx.control
    return control is not None and control.stopped


async def cancellable(ctx: AgentContext, work: Awaitable[T], *, call_id: str = "") -> T:
    """Run ``work`` as a job a stop cancels; raise :class:`Stopped` when it did."""
    control: RunControlLike | None = ctx.control
    job = asyncio.ensure_future(work)
    if control is None:
        return await job
    control.track(job, call_id=call_id, write=False)
    try:
        return await job
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if job.cancelled() and control.stopped and not (current and current.cancelling()):
            raise Stopped from None
        raise


async def shielded(ctx: AgentContext, work: Awaitable[T], *, call_id: str, tool_name: str) -> T:
    """Run a write as a job nothing cancels: not a stop, not a cancelled run (the job goes
    on to its end and records its own outcome)."""
    job = asyncio.ensure_future(work)
    control: RunControlLike | None = ctx.control
    if control is not None:
        control.track(job, call_id=call_id, tool_name=tool_name, write=True)
    return await asyncio.shield(job)


def stopped_reply(ctx: AgentContext) -> AIMessage:
    """The model's last word in a stopped turn (no model is called)."""
    return AIMessage(content=t("stopped", ctx.lang))


def cancelled_call(p: PendingCall, reason: str | None) -> ToolMessage:
    """A call a person cancelled (a denial, a stop): its ``tool_end`` event, emitted, and
    what the model reads for it."""
    why = (reason or "").strip()
    said = "cancelled by the user" + (f": {why}" if why else "")
    call_id, name = p["call_id"], p["tool_name"]
    emit(ToolEndEvent(call_id=call_id, tool_name=name, status="cancelled", result=said))
    refusal = Refusal(
        code="cancelled",
        tool_name=name,
        message=said,
        args=p.get("tool_args") or {},
        env_id=p.get("env_id"),
        reason=why or None,
    )
    return ToolMessage(content=refusal.tool_result(), tool_call_id=call_id, name=name)


async def cancel_calls(
    pending: list[PendingCall], ctx: AgentContext, audit: AuditWriter
) -> list[ToolMessage]:
    """Calls of a stopped turn that did not run (or a read the stop cancelled): each is a
    cancelled result, with its ``tool_end`` event and an audit row."""
    out: list[ToolMessage] = []
    for p in pending:
        out.append(cancelled_call(p, STOPPED_REASON))
        await audit.record(
            kind="cancelled",
            decision="cancel",
            reason=STOPPED_REASON,
            args=p.get("tool_args"),
            **call_row(ctx, p["tool_name"], p.get("env_id")),
        )
    return out
