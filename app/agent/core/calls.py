"""A door's direct tool call: one named tool with its arguments, no model in the loop.

The MCP door (``tools/call``) hands the core a call instead of a message:

    caller = Caller(principal=..., channel="mcp", client="claude-code")
    req = await prepare_call(core=core, caller=caller, tool_name="run_backup",
                             arguments={"env_id": "prod"}, conv_id=None, uicontext=ctx)
    async for event in core.run_call(req):   # tool_start/tool_end, or confirm_required, ...
        ...

``prepare_call`` checks the input once, like ``prepare_turn`` (every refusal audited and
committed before it is raised). ``run_call`` puts an ``AIMessage`` proposing that one call
into the conversation, as if the model had proposed it, and runs the graph from the guard:
the same guard -> confirm (interrupt) -> tools seam and the same audit rows as a turn. The
run ends after the tools (``app.agent.direct``); so does a later ``AgentCore.resume`` of its
confirmation, whichever door the decision comes through.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage

from app.agent.core.opening import audit_offer, plan_request, run_opened
from app.agent.core.prepare import checked_caller, checked_uicontext, refuse
from app.agent.core.protocol import Core
from app.agent.core.requests import Caller, CallRequest, request_row
from app.agent.model_step import DIRECT_KEY
from app.agent.stream import Sequencer
from app.context import UIContext
from app.events import Event
from app.i18n import DEFAULT_LANGUAGE, normalize_language

if TYPE_CHECKING:
    from app.agent.core.control import RunControl

TOOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
MAX_ARGUMENTS_BYTES = 64 * 1024

__all__ = ["CallRequest", "prepare_call", "run_call"]


def _arguments_problem(arguments: Any) -> tuple[int, str, str] | None:
    if not isinstance(arguments, Mapping) or not all(isinstance(k, str) for k in arguments):
        return 422, "invalid_arguments", "arguments must be an object"
    try:
        size = len(json.dumps(dict(arguments), ensure_ascii=False).encode("utf-8"))
    except (TypeError, ValueError):
        return 422, "invalid_arguments", "arguments must be JSON values"
    except UnicodeEncodeError:
        return 422, "invalid_arguments", "arguments must be valid text"
    if size > MAX_ARGUMENTS_BYTES:
        return 413, "arguments_too_large", f"arguments are over {MAX_ARGUMENTS_BYTES} bytes"
    return None


async def prepare_call(
    *,
    core: Core,
    caller: Caller,
    tool_name: str,
    arguments: Mapping[str, Any] | None,
    conv_id: str | None,
    uicontext: UIContext | str | bytes | Mapping[str, Any] | None,
    lang: str | None = None,
) -> CallRequest:
    """Check a direct call's input once: auth 401; ``conv_id`` (a fresh id when None),
    the tool's name and the arguments (a JSON object of at most 64 KiB) 422/413; the
    context like a turn's (an already validated ``UIContext`` is kept). Whether the caller
    may run the tool, and with these arguments, is the guard's to say. ``lang``: the
    language the call's card and refusals are worded in (a door's page; else English;
    one it does not know is English too: a call has no message to tell it from)."""
    conv_id = f"call-{uuid.uuid4().hex}" if conv_id is None else conv_id
    principal, row = await checked_caller(caller, core=core, conv_id=conv_id)
    args = {} if arguments is None else arguments
    if not isinstance(tool_name, str) or not TOOL_NAME.fullmatch(tool_name):
        problem: tuple[int, str, str] | None = (
            422,
            "invalid_tool_name",
            "a tool name is 1-64 letters, digits and underscores",
        )
    else:
        problem = _arguments_problem(args)
    if problem is not None:
        raise await refuse(core.audit, *problem, kind="request_invalid", **row)
    if isinstance(uicontext, UIContext):
        ctx: UIContext | None = uicontext
    else:
        ctx = await checked_uicontext(core.audit, uicontext, row)
    return CallRequest(
        principal=principal,
        conv_id=conv_id,
        tool_name=tool_name,
        arguments=dict(args),
        uicontext=ctx,
        channel=caller.channel,
        client=caller.client,
        lang=normalize_language(lang) or DEFAULT_LANGUAGE,
    )


def proposed_call(req: CallRequest) -> AIMessage:
    """The call as the model would have proposed it (the guard reads the last AIMessage)."""
    call_id = f"call_{uuid.uuid4().hex[:24]}"
    return AIMessage(
        content="",
        tool_calls=[
            {"name": req.tool_name, "args": req.arguments, "id": call_id, "type": "tool_call"}
        ],
        response_metadata={DIRECT_KEY: True},
    )


async def run_call(
    core: Core, req: CallRequest, control: RunControl | None = None
) -> AsyncIterator[Event]:
    """The call's events: ``tool_start`` .. ``tool_end``, or ``confirm_required`` then
    ``done(awaiting_confirmation)``, or ``permission_denied`` / ``error``; then ``done``.
    A pending confirmation of the same conversation is superseded first, as by a turn.
    ``control``: the conversation's run control (a stop reaches the call too)."""
    seq = Sequencer(req.conv_id)
    turn = plan_request(core.rules.policy(), req)
    await audit_offer(core.audit, turn, request_row(req), direct_tool=req.tool_name)

    def messages(_values: Mapping[str, Any]) -> list[Any]:
        return [proposed_call(req)]

    async for ev in run_opened(core, req, turn, messages, seq, control, direct=True):
        yield ev
