"""The contract's stream functions: async generators of SSE frames over the agent core.

    agent_handler(message, history, conv_id, user_id, user_jwt, env_id, uicontext_str=None)
    resume_handler(conv_id, user_jwt, decision, reason=None, *, confirmation_id=None)
    get_conversation(conv_id, user_jwt) -> dict

Each is ``prepare_*`` (the one input check) + the core + :func:`encode_sse`; a refusal
becomes ``error`` + ``done`` frames. The contract's positional arguments are kept as
docs/contract.md lists them. The agent core is an optional keyword (``core=``): by default the
running app's (the parts' core on ``app.state``, :data:`app.vocab.PARTS_STATE`), else a
test's own. ``resume_handler`` answers the conversation's pending confirmation;
``confirmation_id=`` names the card the person saw (the HTTP door always does), so an
answer meant for a card that was replaced is refused.
In-process callers that want typed events use the core directly (``app.agent.core``),
with no SSE text in between.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, TypeVar

from app.agent.audit import AuditWriter
from app.agent.core import (
    AgentCore,
    Caller,
    RequestRefused,
    TurnInput,
    prepare_resume,
    prepare_turn,
)
from app.agent.core.control import admitted
from app.agent.core.requests import ResumeInput
from app.agent.core.runner import fail
from app.agent.state import Sequencer
from app.errors import AuthError
from app.events import Event, encode_sse
from app.vocab import PARTS_STATE, Channel

R = TypeVar("R")
NONE_PENDING = "none-pending"  # not a uuid: no confirmation row has it


def _the_core(core: AgentCore | None) -> AgentCore:
    """``core`` or, by default, the running app's (the parts ``create_app`` installed)."""
    if core is not None:
        return core
    from nicegui import app as running_app  # only when no core is handed in

    running = getattr(getattr(running_app.state, PARTS_STATE, None), "core", None)
    if not isinstance(running, AgentCore):
        raise RuntimeError("no agent core installed: create_app() builds and installs it")
    return running


async def encode_stream(events: AsyncIterator[Event]) -> AsyncIterator[str]:
    """SSE frames of a stream of core events."""
    async for event in events:
        yield encode_sse(event)


async def refusal_frames(
    conv_id: str, refused: RequestRefused, audit: AuditWriter
) -> AsyncIterator[str]:
    """A refused request as a stream: ``error`` then ``done`` (state ``error``)."""
    async for frame in encode_stream(fail(Sequencer(conv_id), refused.event(), audit)):
        yield frame


async def _frames(
    conv_id: str,
    core: AgentCore,
    prepared: Awaitable[R],
    run: Callable[[R], AsyncIterator[Event]],
) -> AsyncIterator[str]:
    """The SSE frames of a prepared request run by ``run``; a refusal's frames instead."""
    try:
        events = await admitted(prepared, run)
    except RequestRefused as refused:
        async for frame in refusal_frames(conv_id, refused, core.audit):
            yield frame
        return
    async for frame in encode_stream(events):
        yield frame


async def agent_handler(
    message: str,
    history: list[dict[str, Any]] | None,
    conv_id: str,
    user_id: str | None,
    user_jwt: str,
    env_id: str | None,
    uicontext_str: str | Mapping[str, Any] | None = None,
    *,
    core: AgentCore | None = None,
    channel: Channel = "page",
) -> AsyncIterator[str]:
    core = _the_core(core)
    turn = TurnInput(
        message=message, history=history, conv_id=conv_id, env_id=env_id, uicontext=uicontext_str
    )
    caller = Caller(token=user_jwt, user_id=user_id, channel=channel)
    prepared = prepare_turn(turn, core=core, caller=caller)
    async for frame in _frames(conv_id, core, prepared, core.run_turn):
        yield frame


async def _pending_id(core: AgentCore, conv_id: str, user_jwt: str) -> str:
    """The id of the conversation's pending confirmation, else an id no card has:
    ``prepare_resume`` then refuses the answer (``confirmation_unknown``), audited."""
    try:
        principal = core.auth.verify(user_jwt)
        view = await core.conversation(principal, conv_id)
    except (AuthError, RequestRefused):  # the one input check below says why, audited
        return NONE_PENDING
    return view.pending.confirmation_id if view.pending is not None else NONE_PENDING


async def resume_handler(
    conv_id: str,
    user_jwt: str,
    decision: str,
    reason: str | None = None,
    *,
    confirmation_id: str | None = None,
    core: AgentCore | None = None,
    channel: Channel = "page",
) -> AsyncIterator[str]:
    core = _the_core(core)
    if confirmation_id is None:
        confirmation_id = await _pending_id(core, conv_id, user_jwt)
    answer = ResumeInput(
        conv_id=conv_id, confirmation_id=confirmation_id, decision=decision, reason=reason
    )
    prepared = prepare_resume(answer, core=core, caller=Caller(token=user_jwt, channel=channel))
    async for frame in _frames(conv_id, core, prepared, core.resume):
        yield frame


async def get_conversation(
    conv_id: str, user_jwt: str, *, core: AgentCore | None = None
) -> dict[str, Any]:
    """Messages, tool calls and any pending confirmation (reloads and second tabs).
    Raises ``AuthError`` for a bad token, ``RequestRefused`` (403) for another's."""
    core = _the_core(core)
    principal = core.auth.verify(user_jwt)
    view = await core.conversation(principal, conv_id)
    return view.as_dict()
