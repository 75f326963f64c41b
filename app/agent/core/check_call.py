"""A door's direct tool call checked once (:func:`prepare_call`): the same auth and
context as a turn (``checks``); a tool name and its arguments (a JSON object of at most
64 KiB); a slot and the pace of calls (429). Whether the caller may run the tool with
these arguments is the guard's to say.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping
from typing import Any

from app.agent.core.checks import checked_caller, checked_uicontext, refuse
from app.agent.core.collaborators import CheckParts
from app.agent.core.requests import Caller, CallRequest
from app.context import UIContext
from app.i18n import DEFAULT_LANGUAGE, normalize_language

TOOL_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
MAX_ARGUMENTS_BYTES = 64 * 1024


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
    core: CheckParts,
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
    slot = await core.limits.admit("call", principal, row, core.audit)
    return CallRequest(
        principal=principal,
        conv_id=conv_id,
        tool_name=tool_name,
        arguments=dict(args),
        uicontext=ctx,
        channel=caller.channel,
        client=caller.client,
        lang=normalize_language(lang) or DEFAULT_LANGUAGE,
        slot=slot,
    )
