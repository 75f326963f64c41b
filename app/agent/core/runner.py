"""Drives one run of the graph (``graph.astream``) and turns what it streams into typed,
numbered events: model tokens, the nodes' own events (``emit``), a confirmation for each
interrupt, and the closing ``message`` / ``error`` + ``done``. A turn that ended on what
the model did (the message's ``problem``) also offers what the person can ask.

Every audit row of the run is committed before ``done`` (``AuditWriter.flush``); a failed
write is said in an ``error`` event, never swallowed. With a run control (``core.control``) the
graph runs in its own task and a stop is answered at once with a ``stopped`` event; with a
write in flight the stream ends there (``done``) and the run goes on for the write.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

from langchain_core.messages import AIMessage, AIMessageChunk, ToolMessage

from app.agent.approval_record import awaiting_event, is_approval
from app.agent.audit import AuditWriter
from app.agent.core.collaborators import RunParts
from app.agent.core.control import ITEM, STOP, RunControl
from app.agent.offers import what_i_can_do
from app.agent.state import AgentContext, Sequencer, confirm_required_event
from app.agent.turn_limits import PROBLEM_KEY
from app.errors import SsToolsError
from app.events import (
    DoneEvent,
    ErrorEvent,
    Event,
    MessageEvent,
    Offer,
    StoppedEvent,
    TokenEvent,
)
from app.i18n import t
from app.reasoning import cot_logger
from app.vocab import DONE_AWAITING_APPROVAL, DoneState

STREAM_MODES = ["messages", "updates", "custom"]


class TokenGate:
    """A model reply's text streams as tokens, except a reply that starts like a call
    written as text (``{``, ``[`` or a code fence): its tokens are held back, so a call
    the core reads out of the text (``app.agent.nodes.salvage.salvage``) is never shown as
    text. Held text is dropped; the run's ``message`` event carries the final answer."""

    _CALL_START = ("{", "[", "`")

    def __init__(self) -> None:
        self._reply: str | None = None  # the model call the tokens belong to
        self._start = ""
        self._holding: bool | None = None  # None: undecided (only blanks so far)

    def pass_on(self, reply_id: str | None, text: str) -> str:
        """What to stream now of ``text`` (a chunk of reply ``reply_id``)."""
        if reply_id != self._reply:  # another model call (a repair try): decide afresh
            self._reply, self._start, self._holding = reply_id, "", None
        if self._holding is None:
            self._start += text
            stripped = self._start.lstrip()
            if not stripped:
                return ""
            self._holding = stripped.startswith(self._CALL_START)
            return "" if self._holding else self._start
        return "" if self._holding else text


class WaysOn:
    """The ways on a run's answer offers (``app.agent.offers``): every refused call's (a
    refusal's ``offers``), and the candidates of the step the model answered right after
    (a lookup's choices, kept in its results' artifacts)."""

    def __init__(self, ask_again: Offer | None = None, standing: Offer | None = None) -> None:
        self._refused: list[Offer] = []
        self._choices: list[Offer] = []
        self._ask_again = ask_again  # a turn on a page whose context left tools out
        # a way on the turn's own facts call for, whatever the model did (connect the
        # person's Superset account on an environment that acts as each person)
        self._standing = standing
        self._called = False

    def note_event(self, event: Any) -> None:
        if isinstance(event, ErrorEvent) and event.offers:
            self._refused.extend(event.offers)

    def note_step(self, update: Mapping[str, Any]) -> None:
        """A node's update: the model proposing calls forgets the last step's candidates;
        a step's results bring their own."""
        for node, values in update.items():
            messages = values.get("messages") or [] if isinstance(values, Mapping) else []
            if node == "model":
                if any(isinstance(m, AIMessage) and m.tool_calls for m in messages):
                    self._choices, self._called = [], True
                continue
            results = [m for m in messages if isinstance(m, ToolMessage)]
            if results:
                self._choices = [
                    Offer.model_validate(o)
                    for m in results
                    if isinstance(m.artifact, Mapping)
                    for o in m.artifact.get("offers") or []
                ]

    def offers(self) -> list[Offer]:
        """The answer's offers; a turn on a page whose context left tools out, answered
        without any call, offers to ask the same again without the page's context."""
        again = [self._ask_again] if self._ask_again and not self._called else []
        seen: set[tuple[str, str]] = set()
        out = []
        standing = [self._standing] if self._standing else []
        for offer in [*([*self._refused, *self._choices] or again), *standing]:
            if (offer.kind, offer.request) not in seen:
                seen.add((offer.kind, offer.request))
                out.append(offer)
        return out


def stopped_event(writes_in_flight: list[str], lang: str) -> StoppedEvent:
    key = "stopped_writes_go_on" if writes_in_flight else "stopped"
    return StoppedEvent(writes_in_flight=writes_in_flight, message=t(key, lang))


async def _output(source: Any, control: RunControl | None) -> AsyncIterator[tuple[str, Any]]:
    """The graph's output as ``(ITEM, item)`` (and ``(STOP, None)`` once stopped): through
    the run's control when there is one (the graph in its own task), else directly."""
    if control is None:
        async for item in source:
            yield ITEM, item
        return
    async for kind, item in control.pump(source):
        yield kind, item


async def finish(
    seq: Sequencer, state: DoneState, audit: AuditWriter, reason: str | None = None
) -> AsyncIterator[Event]:
    """The closing events: every audit row of the turn is committed before ``done``
    (``reason``: why it ended, beside ``state``, e.g. ``awaiting_approval``)."""
    try:
        await audit.flush()
    except Exception as exc:  # the turn happened, but its audit trail is incomplete: say so
        cot_logger.reflect("audit write failed", error=type(exc).__name__)
        yield seq(
            ErrorEvent(
                code="audit_failed",
                message="An audit row could not be written; tell an administrator.",
            )
        )
        state = "error"
    yield seq(DoneEvent(state=state, reason=reason))


async def fail(seq: Sequencer, error: ErrorEvent, audit: AuditWriter) -> AsyncIterator[Event]:
    """``error`` then the closing events."""
    yield seq(error)
    async for ev in finish(seq, "error", audit):
        yield ev


async def run_graph(
    core: RunParts,
    graph: Any,
    inp: Any,
    config: dict[str, Any],
    ctx: AgentContext,
    seq: Sequencer,
    *,
    final: bool = True,
    ask_again: Offer | None = None,
    standing: Offer | None = None,
) -> AsyncIterator[Event]:
    """One ``astream`` of ``core``'s graph as events; ``final=False`` leaves out the closing
    ones (a superseded confirmation's run, before the new message's own run);
    ``ask_again``: the turn's offer to ask again without the page's context; ``standing``:
    an offer the answer carries whatever the model did (``WaysOn``)."""
    audit = core.audit
    interrupted = waiting = False  # a confirmation asked; a second person awaited
    last_ai: AIMessage | None = None
    ways = WaysOn(ask_again, standing)
    gate = TokenGate()
    source = graph.astream(inp, config, context=ctx, stream_mode=STREAM_MODES)
    try:
        async for kind, item in _output(source, ctx.control):
            if kind == STOP:  # a person stopped the turn: say so at once
                writes = ctx.control.writes_in_flight()
                yield seq(stopped_event([w.call_id for w in writes], ctx.lang))
                if writes and final:  # answer now; the run goes on for its writes
                    ctx.control.detach()
                    async for ev in finish(seq, "idle", audit):
                        yield ev
                    return
                continue
            mode, data = item
            if mode == "messages":
                chunk, meta = data
                if (
                    isinstance(chunk, AIMessageChunk)
                    and meta.get("langgraph_node") == "model"
                    and isinstance(chunk.content, str)
                    and chunk.content
                    and (text := gate.pass_on(chunk.id, chunk.content))
                ):
                    yield seq(TokenEvent(text=text))
            elif mode == "custom":  # an event object a node passed to ``emit``
                ways.note_event(data)
                yield seq(data)
            elif "__interrupt__" in data:
                for intr in data["__interrupt__"]:
                    if is_approval(intr.value):  # four-eyes: the call waits, nothing asked
                        waiting = True
                        yield seq(awaiting_event(intr.value))
                        continue
                    interrupted = True
                    cid = intr.value["confirmation_id"]
                    await core.confirmations.shown(cid)
                    yield seq(confirm_required_event(intr.value))
            else:
                ways.note_step(data)
            if mode == "updates" and isinstance(data.get("model"), dict):
                replies = data["model"].get("messages") or []
                last_ai = replies[-1] if replies else last_ai
    except SsToolsError as exc:
        async for ev in fail(seq, ErrorEvent(code="agent_error", message=str(exc)), audit):
            yield ev
        return
    except Exception as exc:  # model endpoint down, checkpoint store failure...
        cot_logger.reflect("agent run failed", error=type(exc).__name__, conv_id=ctx.conv_id)
        await audit.record(
            kind="failed",
            user=ctx.user_id,
            role=ctx.role,
            conv_id=ctx.conv_id,
            decision="error",
            reason=f"agent run failed: {type(exc).__name__}",
            channel=ctx.channel,
            client=ctx.client,
        )
        message = f"The agent could not finish this turn ({type(exc).__name__})."
        async for ev in fail(seq, ErrorEvent(code="agent_error", message=message), audit):
            yield ev
        return
    if not final:
        return
    if interrupted:
        async for ev in finish(seq, "awaiting_confirmation", audit):
            yield ev
        return
    if waiting:  # the turn's answer is the waiting card; its outcome comes later
        async for ev in finish(seq, "idle", audit, DONE_AWAITING_APPROVAL):
            yield ev
        return
    if isinstance(last_ai, AIMessage) and not last_ai.tool_calls:
        text, problem = str(last_ai.content), last_ai.response_metadata.get(PROBLEM_KEY)
        offers = ways.offers()
        if problem is not None and problem != "unreachable":  # the model could not carry it
            offers += what_i_can_do(ctx.allowed_tools, ctx.lang)
        yield seq(MessageEvent(text=text, model=core.model_label, offers=offers, problem=problem))
    async for ev in finish(seq, "idle", audit):
        yield ev
