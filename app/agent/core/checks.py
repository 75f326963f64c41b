"""The one check of everything a door hands the core: ``prepare_turn``, ``prepare_call``
and ``prepare_resume``. Every door (page, HTTP, MCP) calls one of them once and hands the
checked request to the core (``AgentCore.run_turn`` / ``run_call`` / ``resume``); nothing
downstream checks the same input again. This module holds the checks they share (the
caller, the conversation id, the page's context) and ``prepare_turn``; ``check_call`` holds
``prepare_call``, ``check_resume`` holds ``prepare_resume``. Each refusal is a
:class:`RequestRefused` whose audit row is committed before it is raised.

``prepare_turn``, in order:
  auth          the door's ``Caller``: its token (or a principal the door already
                verified); its ``user_id``, when given, must be the token's
                subject                                                            401
  conv_id       ``CONV_ID_PATTERN`` (a fresh id when None)                         422
  message       text, not empty, at most ``message_max_chars``                     422
  env_id        ``ENV_ID_PATTERN`` (no newline can reach a prompt or a row)         422
  history       a list of ``{"role", "content"|"text"}``; only user/assistant text is
                kept (crafted tool or system items are dropped); beyond
                ``history_max_items`` items or ``history_max_bytes`` of text it is cut
                to its newest items (history only seeds a new conversation)       422
  uicontext     ``validate_uicontext`` once: too large 413, invalid 422; text that is
                not JSON at all is ignored with an audit row (the contract's rule)
  limits        one of the user's running slots, then the user's pace of turns
                (``app.agent.core.limits``; the slot rides on the request)     429

``prepare_call`` (a door's direct tool call): the same auth and context; a tool name and
its arguments (a JSON object of at most 64 KiB); a slot and the pace of calls (429).
Whether the caller may run the tool with these arguments is the guard's to say.

``prepare_resume`` (a person's answer to a confirmation): the caller as the users table
says NOW (a demoted admin is refused here, or denied by the graph's recheck under the
current role); ``confirmation_id`` / ``decision`` / ``reason`` (422); edited
``args`` (their shape and the tool's own args model, ``core.edits``: 422 before the
confirmation is spent); a confirmed answer takes one of the user's slots (429 while all
are busy: the confirmation stays pending; answers are not paced, a denial never waits);
then the confirmation itself is answered and consumed (``app.agent.confirmation``: single
use, bound, unexpired, its countdown).
"""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from app.agent.audit import AuditWriter
from app.agent.core.collaborators import CheckParts
from app.agent.core.requests import (
    FOREIGN,
    Caller,
    HistoryItem,
    RequestRefused,
    TurnInput,
    TurnRequest,
)
from app.auth import Principal
from app.context import UIContext, UIContextJSONError, validate_uicontext
from app.errors import AuthError, UIContextError
from app.i18n import detect_lang, normalize_language
from app.reasoning import cot_logger
from app.vocab import CONV_ID_PATTERN, ENV_ID_PATTERN

_CONV_ID = re.compile(CONV_ID_PATTERN)
_ENV_ID = re.compile(ENV_ID_PATTERN)


def is_text(value: object) -> bool:
    """A str that is valid Unicode text (no lone surrogates: they cannot be stored)."""
    if not isinstance(value, str):
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def valid_conv_id(conv_id: object) -> bool:
    return isinstance(conv_id, str) and _CONV_ID.fullmatch(conv_id) is not None


async def refuse(
    audit: AuditWriter, status: int, error: str, reason: str, *, kind: str, **row: Any
) -> RequestRefused:
    """Audit the refusal (committed before the caller answers) and return it to raise."""
    await audit.record(kind=kind, decision="deny", reason=reason, **row)
    await audit.flush()
    return RequestRefused(status, error, reason)


async def refuse_foreign(audit: AuditWriter, **row: Any) -> RequestRefused:
    """A request on another user's conversation (``row``: who and where): audited,
    committed, and returned to raise (or to stream as ``error`` + ``done``)."""
    await audit.record(kind="auth_failed", decision="deny", reason="foreign conversation", **row)
    await audit.flush()
    return RequestRefused(403, "forbidden", FOREIGN)


async def authenticate(
    caller: Caller, *, core: CheckParts, conv_id: str | None = None, fresh: bool = False
) -> Principal:
    """The verified ``caller``: its token's principal, or its already signed-in principal
    (the page's session) — either way checked again to be active (not disabled, deleted
    or re-roled since; ``fresh``: from the users table itself, not the few seconds' cache);
    401 ``unauthorized`` (audited, with ``conv_id``) otherwise."""
    principal, user_id = caller.principal, caller.user_id
    claimed = principal.user_id if principal is not None else None
    auth = core.auth
    try:
        if principal is None:
            principal = auth.cached_token(caller.token)  # verified before: no check, no thread
        if principal is None:
            if auth.external:  # may fetch the key set: off the event loop
                principal = await asyncio.to_thread(auth.decode, caller.token)
            else:  # a local HS256 check is pure CPU (tens of microseconds)
                principal = auth.decode(caller.token)
        if user_id and user_id != principal.user_id:
            raise AuthError("user_id does not match the token's subject")
        if fresh:
            principal = await auth.ensure_current_async(principal)
        else:
            principal = await auth.ensure_active_async(principal)
    except AuthError as exc:
        who = user_id if is_text(user_id) else claimed
        raise await refuse(
            core.audit,
            401,
            "unauthorized",
            str(exc),
            kind="auth_failed",
            user=who,
            conv_id=conv_id if valid_conv_id(conv_id) else None,
            channel=caller.channel,
            client=caller.client,
        ) from None
    return principal


async def checked_caller(
    caller: Caller, *, core: CheckParts, conv_id: str, fresh: bool = False
) -> tuple[Principal, dict[str, Any]]:
    """The verified caller (:func:`authenticate`, ``fresh`` as there) and the audit row's
    fields of its request (user, role, channel, client, conv_id) once ``conv_id`` is
    checked: 422 ``invalid_conv_id`` (audited without it) otherwise. Every ``prepare_*``
    starts here."""
    principal = await authenticate(caller, core=core, conv_id=conv_id, fresh=fresh)
    row = principal.audit_row(channel=caller.channel, client=caller.client)
    if not valid_conv_id(conv_id):
        raise await refuse(
            core.audit,
            422,
            "invalid_conv_id",
            "conv_id must be 1-128 characters of letters, digits and _.:-",
            kind="request_invalid",
            **row,
        )
    row["conv_id"] = conv_id
    return principal, row


def _history(
    items: Sequence[Mapping[str, Any]] | None, max_items: int, max_bytes: int
) -> tuple[tuple[HistoryItem, ...], str | None]:
    """(the kept items, oldest first; the problem when the history is malformed)."""
    if items is None:
        return (), None
    if isinstance(items, str | bytes) or not isinstance(items, Sequence):
        return (), "history must be a list of messages"
    parsed: list[HistoryItem] = []
    for item in items:
        if not isinstance(item, Mapping):
            return (), "each history item must be an object with role and content"
        text = item.get("content") if item.get("content") is not None else item.get("text")
        if text is not None and not is_text(text):
            return (), "history content must be text"
        role = item.get("role")
        if role in ("user", "assistant") and text:
            parsed.append(HistoryItem(role=role, text=text))
    kept: list[HistoryItem] = []
    size = 0
    for entry in reversed(parsed):  # newest first, until a cap is reached
        size += len(entry.text.encode("utf-8"))
        if len(kept) >= max_items or size > max_bytes:
            break
        kept.append(entry)
    if len(kept) < len(parsed):
        cot_logger.reason("history cut to its newest items", kept=len(kept), given=len(parsed))
    return tuple(reversed(kept)), None


async def prepare_turn(turn: TurnInput, *, core: CheckParts, caller: Caller) -> TurnRequest:
    """Check a turn's input once (see the module docstring); raise ``RequestRefused``."""
    message, env_id = turn.message, turn.env_id
    conv_id = uuid.uuid4().hex if turn.conv_id is None else turn.conv_id
    principal, row = await checked_caller(caller, core=core, conv_id=conv_id)
    settings = core.settings
    problem = None
    if not is_text(message) or not message.strip():
        problem = ("invalid_message", "the message must be non-empty text")
    elif len(message) > settings.message_max_chars:
        problem = ("message_too_long", f"the message is over {settings.message_max_chars} chars")
    elif env_id is not None and (not isinstance(env_id, str) or not _ENV_ID.fullmatch(env_id)):
        problem = ("invalid_env_id", "env_id must be 1-64 characters of letters, digits and _.-")
    if problem is not None:
        raise await refuse(core.audit, 422, *problem, kind="request_invalid", **row)
    kept, bad_history = _history(
        turn.history, settings.history_max_items, settings.history_max_bytes
    )
    if bad_history is not None:
        raise await refuse(
            core.audit, 422, "invalid_history", bad_history, kind="request_invalid", **row
        )
    ctx = await checked_uicontext(core.audit, turn.uicontext, row)
    slot = await core.limits.admit("turn", principal, row, core.audit)
    return TurnRequest(
        principal=principal,
        conv_id=conv_id,
        message=message,
        history=kept,
        env_id=env_id or None,
        uicontext=ctx,
        channel=caller.channel,
        lang=normalize_language(turn.lang) or detect_lang(message),
        client=caller.client,
        slot=slot,
    )


async def checked_uicontext(
    audit: AuditWriter, payload: str | bytes | Mapping[str, Any] | None, row: dict[str, Any]
) -> UIContext | None:
    """The page context, validated once (413/422 refused; text that is not JSON ignored)."""
    if payload is None:
        return None
    try:
        ctx = validate_uicontext(dict(payload) if isinstance(payload, Mapping) else payload)
    except UIContextJSONError as exc:  # not JSON at all: ignored, every allowed tool kept
        cot_logger.explore("uicontext ignored", reason=str(exc), conv_id=row.get("conv_id"))
        await audit.record(kind="uicontext_ignored", decision="allow", reason=str(exc), **row)
        return None
    except UIContextError as exc:
        cot_logger.explore(
            "uicontext refused", status=exc.status_code, reason=str(exc), conv_id=row.get("conv_id")
        )
        raise await refuse(
            audit, exc.status_code, "invalid_uicontext", str(exc), kind="uicontext_invalid", **row
        ) from None
    cot_logger.reason(
        "uicontext checked",
        object_type=ctx.objectType,
        object_id=ctx.objectId,
        env_id=ctx.envId,
        conv_id=row.get("conv_id"),
    )
    return ctx
