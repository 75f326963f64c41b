"""The tool node's part in undo: what happens after a call that changed something ended
well (``app.agent.nodes.tools``).

* :func:`settle` — the call left an :class:`~app.tools.undo_plan.UndoPlan` on its
  deps (an undoable write): the change is stored (:mod:`app.store.undo`) for the
  retention period, with the id of the audit row its execution is recorded under, and
  the call's result carries the ``undo`` offer (``ToolEndEvent.offers``: a typed fact,
  whatever the model says), its ``undo_id`` and ``undo_until`` (so a model, or the
  offline planner, can say "undo that" too) and, in its checkpointed artifact, the offer
  again (a reopened conversation shows it while it is still available:
  :func:`available_offers`).
* :func:`note_undone` — the call was an undo (``deps.undone``): a later ``undone`` audit
  row links it to the change (the change's audit row id, call and conversation), so the
  audit page shows the original "undone by"; audit rows are never changed.

A change that cannot be stored (the database failing) still happened: the call's result
stands, without an offer, and the log says why.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from app.agent.audit import AuditWriter
from app.agent.offers import undo as undo_offer
from app.agent.state import AgentContext, PendingCall, call_row
from app.events import Offer
from app.policy import Policy
from app.store import undo as undo_store
from app.store.db import Database
from app.store.models import utcnow
from app.store.undo import UndoRecord
from app.tools.undo_plan import Undone, UndoPlan

log = logging.getLogger("ss_tools.agent")
ARTIFACT_KEY = "undo"  # the checkpointed artifact's offers (apart from a lookup's choices)


@dataclass
class Settled:
    """A completed call's result as the doors get it, its offers and the id of the audit
    row its execution is recorded under."""

    result: Any
    audit_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    offers: list[Offer] = field(default_factory=list)


def _store(db: Database, record: UndoRecord) -> None:
    with db.session() as session:
        undo_store.add(session, record)


async def settle(
    deps: Any, p: PendingCall, ctx: AgentContext, result: Any, policy: Policy, days: int
) -> Settled:
    """The call's result with its undo offer when it left an undo plan (see the module
    docstring); ``days``: how long the change can be undone."""
    settled = Settled(result)
    plan = getattr(deps, "undo", None)
    if not isinstance(plan, UndoPlan) or not isinstance(result, dict):
        return settled
    name, args = p["tool_name"], dict(p.get("tool_args") or {})
    env_id = plan.env_id or p.get("env_id")
    spec = policy.spec(name)
    now = utcnow()
    record = UndoRecord(
        kind=plan.kind, tool_name=name, tool_args=args, env_id=env_id,
        description=spec.describe(args, env_id, ctx.lang) if spec is not None else name,
        call_id=p["call_id"], conv_id=ctx.conv_id, user_id=ctx.user_id,
        audit_id=settled.audit_id, inverse=plan.inverse, fingerprint=plan.fingerprint,
        summary=plan.summary, created_at=now, expires_at=now + timedelta(days=days),
    )  # fmt: skip
    try:
        await asyncio.to_thread(_store, deps.db, record)
    except Exception:  # the write happened: its result stands, without an undo
        log.exception("could not store the undo of %s (%s)", name, p["call_id"])
        return settled
    until = record.expires_at.isoformat(timespec="seconds")
    offer = undo_offer(policy, record.id, record.description, until, ctx.object_type, ctx.lang)
    return Settled({"undo_id": record.id, "undo_until": until, **result}, settled.audit_id, [offer])


async def note_undone(audit: AuditWriter, deps: Any, p: PendingCall, ctx: AgentContext) -> None:
    """The ``undone`` audit row of an undo call (nothing for any other call)."""
    undone = getattr(deps, "undone", None)
    if not isinstance(undone, Undone):
        return
    change = undone.change
    await audit.record(
        kind="undone",
        decision="ok",
        reason=f"undone by {ctx.user_id}: {change.description}",
        args={
            "undo_id": change.undo_id,
            "undoes_audit_id": change.audit_id,
            "undoes_call_id": change.call_id,
            "made_by": change.user_id,
            "undo_call_id": p["call_id"],
        },
        **call_row(ctx, change.tool_name, change.env_id),
    )


def _available(db: Database, undo_ids: set[str]) -> set[str]:
    with db.session() as session:
        return undo_store.available(session, undo_ids=undo_ids)


def offered_ids(offers: Iterable[Mapping[str, Any]]) -> set[str]:
    """The undo ids of stored ``undo`` offers."""
    return {
        str((o.get("call") or {}).get("args", {}).get("undo_id"))
        for o in offers
        if o.get("kind") == "undo"
    }


async def available_offers(db: Database, rows: list[dict[str, Any]]) -> None:
    """Keep, on each restored call row, only the undo offers still available (open, not
    expired): a reopened conversation shows "Undo" while it can be taken."""
    offered = set().union(*(offered_ids(r.get("offers") or []) for r in rows))
    if not offered:
        return
    open_ids = await asyncio.to_thread(_available, db, offered)
    for row in rows:
        row["offers"] = [o for o in row.get("offers") or [] if offered_ids([o]) <= open_ids]
