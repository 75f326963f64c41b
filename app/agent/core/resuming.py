"""``prepare_resume``: the one check of a person's answer to a confirmation, from any
door — auth (401; the user's status and role read from the users table, never the
cache: issue 23 item 4), ``conv_id`` / ``confirmation_id`` / ``decision`` / ``reason`` (422),
edited ``args`` (their shape and the tool's own args model, ``core.edits``: 422 before the
confirmation is spent), then the confirmation itself (``app.agent.confirmation``: single use,
bound, unexpired, the dangerous gate), consumed here. Every refusal is audited and
committed before it is raised; a refused confirmation is a ``ConfirmationRefused``.
:func:`run_resume` is the answer's run, once checked.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

from langgraph.types import Command

from app.agent.audit import audit_scope
from app.agent.core.edits import edit_fits_tool, edit_shape, shown_and_edited
from app.agent.core.prepare import checked_caller, is_text, refuse
from app.agent.core.protocol import Core
from app.agent.core.requests import (
    Caller,
    ConfirmationRefused,
    ResumeInput,
    ResumeRequest,
    request_row,
)
from app.agent.core.runner import run_graph
from app.agent.core.turns import last_human_text, run_config
from app.agent.state import AgentContext
from app.agent.stream import Sequencer
from app.errors import ConfirmationError
from app.events import Event
from app.i18n import detect_lang

MAX_REASON_CHARS = 2000
MAX_CONFIRMATION_ID_CHARS = 128


async def prepare_resume(answer: ResumeInput, *, core: Core, caller: Caller) -> ResumeRequest:
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
    except ConfirmationError as exc:  # audited by Confirmations.check
        await core.audit.flush()
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
    )


#: The run context of a resume, for the checkpointed turn and its language.
ContextFor = Callable[[Mapping[str, Any], str], AgentContext]


async def run_resume(core: Core, req: ResumeRequest, context: ContextFor) -> AsyncIterator[Event]:
    """Continue the graph after ``prepare_resume`` consumed the confirmation: audit the
    answer (confirmed or cancelled, edited arguments shown beside the ones on the card),
    then resume; edited ``args`` pass policy again in the graph (``app.agent.recheck``)."""
    seq = Sequencer(req.conv_id)
    graph = await core.graph()
    config = run_config(req.conv_id)
    state = await graph.aget_state(config)
    values = state.values or {}
    lang = detect_lang(last_human_text(values.get("messages") or []))
    ctx = context(values.get("turn") or {}, lang)
    confirmed = req.decision == "confirm"
    record = req.confirmation
    await core.audit.record(
        kind="confirmed" if confirmed else "cancelled",
        tool=record.tool_name if record else None,
        env=record.env_id if record else None,
        decision="confirm" if confirmed else "cancel",
        reason=req.reason if req.args is None else "confirmed with edited arguments",
        args=shown_and_edited(values, req),
        **request_row(req),
    )
    answer = {"decision": req.decision, "reason": req.reason, "args": req.args}
    cmd: Command[Any] = Command(resume=answer)
    async for ev in run_graph(core, graph, cmd, config, ctx, seq):
        yield ev
