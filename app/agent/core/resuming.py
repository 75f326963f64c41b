"""``prepare_resume``: the one check of a person's answer to a confirmation, from any
door — auth (401), ``conv_id`` / ``confirmation_id`` / ``decision`` / ``reason`` (422),
edited ``args`` (their shape and the tool's own args model, ``core.edits``: 422 before the
confirmation is spent), then the confirmation itself (``app.agent.confirm``: single use,
bound, unexpired, the dangerous gate), consumed here. Every refusal is audited and
committed before it is raised; a refused confirmation is a ``ConfirmationRefused``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from app.agent.audit import audit_scope, flush_audit
from app.agent.confirm import check_confirmation, confirmation_tool
from app.agent.core.edits import edit_fits_tool, edit_shape
from app.agent.core.prepare import _is_text, _refuse, authenticate, valid_conv_id
from app.agent.core.refusals import ConfirmationRefused
from app.agent.core.requests import ResumeRequest
from app.agent.core.slot import get_core
from app.auth import Principal
from app.errors import ConfirmationError
from app.vocab import Channel

if TYPE_CHECKING:
    from app.agent.core.agent import AgentCore

MAX_REASON_CHARS = 2000
MAX_CONFIRMATION_ID_CHARS = 128


async def prepare_resume(
    *,
    token: str | None = None,
    principal: Principal | None = None,
    conv_id: str,
    confirmation_id: str,
    decision: str,
    reason: str | None = None,
    args: Mapping[str, Any] | None = None,
    channel: Channel,
    client: str | None = None,
    core: AgentCore | None = None,
) -> ResumeRequest:
    """Check a resume's input, then validate and consume the confirmation (single use).
    ``core``: the agent core whose conversation it is (default: the installed one)."""
    principal = await authenticate(
        token, principal=principal, conv_id=conv_id, channel=channel, client=client
    )
    row: dict[str, Any] = dict(
        user=principal.user_id, role=principal.role, channel=channel, client=client
    )
    if not valid_conv_id(conv_id):
        raise await _refuse(
            422,
            "invalid_conv_id",
            "conv_id must be 1-128 characters of letters, digits and _.:-",
            kind="request_invalid",
            **row,
        )
    row["conv_id"] = conv_id
    problem = None
    if not _is_text(confirmation_id) or not 0 < len(confirmation_id) <= MAX_CONFIRMATION_ID_CHARS:
        problem = ("invalid_confirmation_id", "confirmation_id must be 1-128 characters")
    elif decision not in ("confirm", "deny"):
        problem = ("invalid_decision", "decision must be 'confirm' or 'deny'")
    elif reason is not None and (not _is_text(reason) or len(reason) > MAX_REASON_CHARS):
        problem = ("invalid_reason", f"reason must be text of at most {MAX_REASON_CHARS} chars")
    elif args is not None:
        problem = edit_shape(args, decision)
        if problem is None:  # the tool's own args model, before the confirmation is spent
            tool = await confirmation_tool(confirmation_id, conv_id=conv_id, user_id=row["user"])
            problem = edit_fits_tool(tool, args)
    if problem is not None:
        raise await _refuse(422, *problem, kind="request_invalid", **row)
    graph = await (core or get_core()).graph()
    try:
        with audit_scope(channel, client):
            confirmation = await check_confirmation(
                graph,
                conv_id=conv_id,
                principal=principal,
                confirmation_id=confirmation_id,
                decision=decision,
                edited_args=args,
            )
    except ConfirmationError as exc:  # audited by check_confirmation
        await flush_audit()
        raise ConfirmationRefused(exc) from None
    return ResumeRequest(
        principal=principal,
        conv_id=conv_id,
        confirmation_id=confirmation_id,
        decision=decision,  # type: ignore[arg-type]  # checked above
        reason=reason,
        channel=channel,
        args=None if args is None else dict(args),
        confirmation=confirmation,
        client=client,
    )
