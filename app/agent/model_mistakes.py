"""How the guard takes a model's ordinary mistakes: one call at a time, one line per turn,
and a stray argument on a read dropped.

**One call at a time.** A reply that proposes several calls (a small model asked "what
can you do?" calls every tool at once) runs only the first call that passes the guard
(:func:`first_that_passes`); the model reads, for each other call, that it was set aside
(``REFUSED`` with code ``one_at_a_time``), and the person sees one short note for the
whole reply. When no call passes, each call's own refusal goes back to the model, and
the person sees the first one only. (A model known to handle parallel calls is run as
before: every call of the reply, each through the guard; ``Settings.llm_parallel_tool_calls``.)

**One line per mistake.** The person sees at most one line in a turn for what the model
got wrong (:func:`say_line`): an unknown tool, arguments the tool does not accept, or a
reply set aside as above. A later mistake is audited but not shown: a second one of a
kind ends the turn with a sentence that says how many there were, and the way on
(``app.agent.turn_limits.turn_limit``). A repeated call is never shown either: the turn
ends on it with its own sentence. Refusals by policy (a role, the page's context, an
environment, a maintenance window, a failed check) are not the model's mistakes and
are always shown.

**A stray argument on a read** (:func:`read_leniently`): a call of a tool whose risk is
``read`` whose only faults are argument names the tool does not have, or optional
arguments written empty (``"schema": ""``) that the tool refuses, runs without them (an
empty one is read as left out), and the model reads a note saying so; a write (or a tool
that rates each call, such as SQL) with such an argument is refused as before. A read
with an extra or an empty argument is harmless, and models write both often.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, NamedTuple

from langchain_core.messages import BaseMessage, ToolMessage
from pydantic import BaseModel, ValidationError

from app.agent.audit import AuditWriter
from app.agent.state import AgentContext, call_row, emit
from app.agent.turn_limits import MISTAKES, NOTE_PREFIX, this_turn
from app.events import BaseEvent, ErrorEvent
from app.facts import Refusal, read_refusal
from app.policy import ToolSpec

#: the refusals that are the model's mistakes (at most one of them is shown in a turn)
MISTAKE_CODES = frozenset({*MISTAKES, "repeated_call", "one_at_a_time"})
#: never shown: the turn ends on it with its own sentence
ENDS_THE_TURN = frozenset({"repeated_call"})
STRAY = "extra_forbidden"  # pydantic's error type for an argument the model does not have
_STRAY_SAID = "arguments this tool does not have were ignored: {names}"
_EMPTY_SAID = "arguments left empty were read as left out: {names}"

# what the guard is saying in this step: the mistakes the turn made before it, and the
# lines held back while the calls of one reply are policed together
_EARLIER: ContextVar[tuple[str, ...]] = ContextVar("earlier_mistakes", default=())
_HELD: ContextVar[list[tuple[BaseEvent, Refusal]] | None] = ContextVar("held", default=None)


def turn_refusals(messages: Sequence[BaseMessage]) -> list[Refusal]:
    """The refusals the model has read in this turn so far."""
    found = []
    for m in this_turn(messages):
        if isinstance(m, ToolMessage) and (r := read_refusal(str(m.content))) is not None:
            found.append(r)
    return found


@contextmanager
def guard_step(messages: Sequence[BaseMessage]) -> Iterator[None]:
    """One guard step of a turn whose messages are ``messages`` (the turn so far)."""
    earlier = tuple(r.code for r in turn_refusals(messages) if r.code in MISTAKE_CODES)
    token = _EARLIER.set(earlier)
    try:
        yield
    finally:
        _EARLIER.reset(token)


def say_line(event: BaseEvent, refusal: Refusal) -> None:
    """Show ``event`` (a refusal's line) unless the rules of the module hold it back."""
    held = _HELD.get()
    if held is not None:
        held.append((event, refusal))
        return
    if refusal.code in MISTAKE_CODES and (_EARLIER.get() or refusal.code in ENDS_THE_TURN):
        return  # audited by the caller; the turn's one line was shown, or its end says it
    emit(event)


@contextmanager
def _holding() -> Iterator[list[tuple[BaseEvent, Refusal]]]:
    held: list[tuple[BaseEvent, Refusal]] = []
    token = _HELD.set(held)
    try:
        yield held
    finally:
        _HELD.reset(token)


def set_aside(call: dict[str, Any], ran: str) -> Refusal:
    """What the model reads for a call of a reply whose other call ``ran``."""
    return Refusal(
        code="one_at_a_time",
        tool_name=call["name"],
        message=f"only one call of a reply runs: {ran} ran and this one did not; answer "
        f"with {ran}'s result, or call this in a later reply if it is still needed",
        args=dict(call.get("args") or {}),
    )


Police = Callable[[dict[str, Any]], Awaitable[Any]]
Held = list[tuple[BaseEvent, Refusal]]


async def first_that_passes(
    calls: Sequence[dict[str, Any]], police: Police
) -> tuple[int | None, list[Any], Held]:
    """Police ``calls`` in order until one passes (``police``: a refusal ToolMessage or
    the checked call), their lines held back. Returns that call's index (None: none
    passed), each policed call's outcome and the held lines. When none passed the first
    line is shown (none when two are one mistake: the turn's end says how many); when
    one did, the caller says the reply's one note (:func:`reply_note`)."""
    outcomes: list[Any] = []
    with _holding() as held:
        for call in calls:
            outcome = await police(call)
            outcomes.append(outcome)
            if not isinstance(outcome, ToolMessage):
                break
    if not isinstance(outcomes[-1], ToolMessage):
        return len(outcomes) - 1, outcomes, held
    codes: list[str] = [r.code for _, r in held]
    if held and not any(codes.count(code) >= 2 for code in MISTAKES):
        say_line(*held[0])
    return None, outcomes, held


def reply_note(calls: Sequence[dict[str, Any]], ran: int) -> Refusal:
    """The one note of a reply of several ``calls`` of which the one at ``ran`` ran."""
    name = calls[ran]["name"]
    aside = [c["name"] for i, c in enumerate(calls) if i != ran]
    return Refusal(
        code="one_at_a_time",
        tool_name=name,
        message=f"the model asked for {len(calls)} calls in one reply; {name} ran, the "
        f"others were set aside: {', '.join(aside)}",
        tools=aside,
    )


class Lenient(NamedTuple):
    """A read's arguments as it runs, and what was left out of what the model wrote."""

    args: BaseModel
    stray: list[str]  # names the tool does not have: dropped
    emptied: list[str]  # optional arguments written empty, refused: read as left out

    def said(self) -> str:
        """What was left out, in one sentence (the model's note and the audit row)."""
        return "; ".join(
            said.format(names=", ".join(names))
            for said, names in ((_STRAY_SAID, self.stray), (_EMPTY_SAID, self.emptied))
            if names
        )

    def note(self) -> str:
        """The line the model reads before the result."""
        return f"{NOTE_PREFIX}{self.said()}.\n"


def read_leniently(
    spec: ToolSpec | None, args_model: type[BaseModel], raw: dict[str, Any], exc: ValidationError
) -> Lenient | None:
    """A read's arguments without the names it does not have and without the optional ones
    written empty that it refuses, when those were its only faults; None otherwise (a
    write, a per-call risk, any other error)."""
    if spec is None or spec.risk != "read" or spec.call_risk is not None:
        return None
    fields = args_model.model_fields
    stray: list[str] = []
    emptied: list[str] = []
    for e in exc.errors():
        name = str(e["loc"][0]) if e["loc"] else ""
        field = fields.get(name)
        if e["type"] == STRAY and name:
            stray.append(name)
        elif field is not None and not field.is_required() and raw.get(name) == "":
            emptied.append(name)
        else:
            return None
    if not stray and not emptied:
        return None
    kept = {k: v for k, v in raw.items() if k not in stray and k not in emptied}
    try:
        return Lenient(args_model.model_validate(kept), stray, emptied)
    except ValidationError:
        return None


async def one_call_of(
    calls: list[dict[str, Any]],
    police: Police,
    ctx: AgentContext,
    audit: AuditWriter,
    open_card: Callable[[Any, AgentContext], Awaitable[None]],
) -> dict[str, Any]:
    """The guard's update for a reply of several ``calls``: the first that passes runs
    (its confirmation opened with ``open_card`` when it needs one), each other call is
    answered "set aside", and the reply gets one note and one audit row."""
    index, outcomes, held = await first_that_passes(calls, police)
    if index is None:
        return {"messages": outcomes, "pending": []}
    checked = outcomes[index]
    ran = calls[index]["name"]
    note = reply_note(calls, index)
    offers = [o for event, _ in held for o in getattr(event, "offers", None) or []]
    event = ErrorEvent(
        code=note.code, message=note.message, tool_name=ran, refusal=note, offers=offers
    )
    say_line(event, note)
    await audit.record(
        kind="not_available",
        decision="error",
        reason=f"model: {note.message}",
        **call_row(ctx, ran, checked.call.get("env_id")),
    )
    aside = [
        ToolMessage(set_aside(c, ran).tool_result(), tool_call_id=c["id"], name=c["name"])
        for i, c in enumerate(calls)
        if i != index
    ]
    if checked.call["needs_confirmation"]:
        await open_card(checked, ctx)
    return {"messages": aside, "pending": [checked.call]}


async def audit_leniency(
    audit: AuditWriter, ctx: AgentContext, tool: str, raw: dict[str, Any], lenient: Lenient
) -> None:
    """The audit row of a read that runs without what it refused (:func:`read_leniently`)."""
    await audit.record(
        kind="retried",
        decision="allow",
        reason=f"model: {tool}: {lenient.said()}",
        args=raw,
        **call_row(ctx, tool, None),
    )
