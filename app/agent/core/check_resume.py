"""A person's answer to a confirmation checked once (:func:`prepare_resume`): the caller
as the users table says NOW (``checks``); ``confirmation_id`` / ``decision`` / ``reason``
(422); edited ``args`` (``core.edits``: 422 before the confirmation is spent); a confirmed
answer takes one of the user's slots (429); then the confirmation itself is answered and
consumed (``app.agent.confirmation``: single use, bound, unexpired, its countdown).
"""

from __future__ import annotations

from app.agent.audit import audit_scope
from app.agent.core.checks import checked_caller, is_text, refuse
from app.agent.core.collaborators import CheckParts
from app.agent.core.edits import edit_fits_tool, edit_shape
from app.agent.core.requests import Caller, ConfirmationRefused, ResumeInput, ResumeRequest
from app.errors import ConfirmationError

MAX_REASON_CHARS = 2000
MAX_CONFIRMATION_ID_CHARS = 128


async def prepare_resume(answer: ResumeInput, *, core: CheckParts, caller: Caller) -> ResumeRequest:
    """Check a resume's input, then validate and consume the confirmation (single use).
    ``core``: the agent core whose conversation it is."""
    conv_id, confirmation_id, decision = answer.conv_id, answer.confirmation_id, answer.decision
    reason, args = answer.reason, answer.args
    # the answer is a decision: the caller as the users table says NOW (a demoted admin
    # is refused here, or denied by the graph's recheck under the current role)
    principal, row = await checked_caller(caller, core=core, conv_id=conv_id, fresh=True)
    problem = None
    if not is_text(confirmation_id) or not 0 < len(confirmation_id) <= MAX_CONFIRMATION_ID_CHARS:
        problem = ("invalid_confirmation_id", "confirmation_id must be 1-128 characters")
    elif decision not in ("confirm", "deny"):
        problem = ("invalid_decision", "decision must be 'confirm' or 'deny'")
    elif reason is not None and (not is_text(reason) or len(reason) > MAX_REASON_CHARS):
        problem = ("invalid_reason", f"reason must be text of at most {MAX_REASON_CHARS} chars")
    elif args is not None:
        problem = edit_shape(args, decision)
        if problem is None:  # the tool's own args model, before the confirmation is spent
            tool = await core.confirmations.tool_of(
                confirmation_id, conv_id=conv_id, user_id=row["user"]
            )
            problem = edit_fits_tool(core.rules.policy(), tool, args)
    if problem is not None:
        raise await refuse(core.audit, 422, *problem, kind="request_invalid", **row)
    graph = await core.graph()
    # a confirmed answer runs again: one of the user's slots, before the confirmation is
    # spent (refused, it stays pending); a denial is never limited
    slot = await core.limits.hold(principal, row, core.audit) if decision == "confirm" else None
    try:
        with audit_scope(caller.channel, caller.client):
            confirmation = await core.confirmations.answer(
                graph,
                principal=principal,
                conv_id=conv_id,
                confirmation_id=confirmation_id,
                decision=decision,
                args=args,
            )
    except BaseException as exc:
        await core.limits.free(slot)
        if not isinstance(exc, ConfirmationError):
            raise
        await core.audit.flush()  # audited by Confirmations.check
        raise ConfirmationRefused(exc) from None
    return ResumeRequest(
        principal=principal,
        conv_id=conv_id,
        confirmation_id=confirmation_id,
        decision=decision,  # type: ignore[arg-type]  # checked above
        reason=reason,
        channel=caller.channel,
        args=None if args is None else dict(args),
        confirmation=confirmation,
        client=caller.client,
        slot=slot,
    )
