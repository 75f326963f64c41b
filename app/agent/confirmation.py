"""A confirmation's whole life, in one place, over one typed record.

A guarded or dangerous call waits for a person (the guard decides so, the graph's confirm
node interrupts). Its confirmation is a row of ``app.store.confirmations``, read here as a
:class:`ConfirmationRecord`, and it lives through these steps, all in :class:`Confirmations`:

1. **open** — the row, bound to the conversation, the user, the tool, the arguments' hash
   and the environment, with the policy's countdown (``countdown_s`` of the confirmation
   contract: 10 s for a dangerous call) and its expiry; the ``confirm_requested`` audit
   row; the card's data on the pending call.
2. **shown** — the ``confirm_required`` event left the server: the countdown starts, on
   the server's clock.
3. **answer** — checked (this conversation and user, unused, unexpired, the one pending
   in the graph, for the call as shown, past its countdown when confirmed) and consumed in
   the same step: a conditional UPDATE, so of two racing answers exactly one wins. An
   answer with edited arguments keeps their hash: only those arguments run (:meth:`bound`).
   A refusal is a ``ConfirmationError`` with an audit row.
4. **spend** — a new message or a stop withdraws a pending confirmation: consumed as
   ``superseded``, so it can never be confirmed, whatever state it was in (a call that
   waits for a second person instead has its request withdrawn:
   ``app.agent.approvals.withdraw_waiting``).

A confirmed answer is policed again before it runs (``app.agent.nodes.confirm``):
:func:`raises_the_stakes` says when an answer needs a new confirmation instead.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, fields
from datetime import UTC, datetime, timedelta
from typing import Any

from app.agent.audit import AuditWriter
from app.agent.state import AgentContext, PendingCall, call_row
from app.auth import Principal
from app.errors import ConfirmationError
from app.reasoning import cot_logger
from app.store import confirmations
from app.store.db import Database
from app.store.models import Confirmation, as_utc

RISK_RANK = {"safe": 0, "guarded": 1, "dangerous": 2}
SUPERSEDED = "superseded"


def args_hash(tool_name: str, tool_args: Mapping[str, Any], env_id: str | None) -> str:
    """What a confirmation is bound to: the tool, its arguments and its environment."""
    blob = json.dumps([tool_name, dict(tool_args), env_id], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def edit_hash(tool_name: str, args: Mapping[str, Any]) -> str:
    """The hash a consumed confirmation keeps of the arguments a person edited."""
    return args_hash(tool_name, args, None)


@dataclass(frozen=True)
class ConfirmationRecord:
    """One confirmation as its row holds it (times are timezone-aware UTC)."""

    id: str
    conv_id: str
    user_id: str
    tool_name: str
    call_id: str
    args_hash: str
    env_id: str | None
    risk_level: str
    countdown_s: int
    sent_at: datetime
    expires_at: datetime
    used_at: datetime | None
    decision: str | None
    edited_args_hash: str | None

    @classmethod
    def of(cls, row: Confirmation) -> ConfirmationRecord:
        values = {f.name: getattr(row, f.name) for f in fields(cls)}
        for name in ("sent_at", "expires_at", "used_at"):
            values[name] = None if values[name] is None else as_utc(values[name])
        return cls(**values)

    def as_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def named_envs(p: Mapping[str, Any]) -> dict[str, str | None]:
    """Every environment a call's arguments name: ``env_id`` and each ``*_env`` (a
    deploy's ``source_env`` as well as its ``target_env``), as given (None: omitted)."""
    args = p.get("tool_args") or {}
    return {
        k: None if v is None else str(v).strip()
        for k, v in args.items()
        if k == "env_id" or k.endswith("_env")
    }


def raises_the_stakes(shown: Mapping[str, Any], now: Mapping[str, Any]) -> bool:
    """Another environment (the call's own, or any its arguments name: an edit of a
    deploy's ``source_env`` alone), or a higher risk level, than the call the person saw."""
    if now.get("env_id") != shown.get("env_id") or named_envs(now) != named_envs(shown):
        return True
    return RISK_RANK.get(now["risk_level"], 2) > RISK_RANK.get(shown["risk_level"], 2)


class Confirmations:
    """The confirmation rows of ``db`` (one per agent core): ``ttl_s`` until one expires;
    refusals are audited through ``audit``."""

    def __init__(self, db: Database, audit: AuditWriter, *, ttl_s: float) -> None:
        self.db = db
        self.audit = audit
        self.ttl_s = ttl_s

    # ---- the rows (blocking; run in a thread) -------------------------------------------
    def _create(self, **values: Any) -> str:
        with self.db.session() as s:
            return str(confirmations.create(s, **values).id)

    def _load(self, confirmation_id: str) -> ConfirmationRecord | None:
        with self.db.session() as s:
            row = confirmations.get(s, confirmation_id=confirmation_id)
            return None if row is None else ConfirmationRecord.of(row)

    def _shown(self, confirmation_id: str) -> None:
        with self.db.session() as s:
            confirmations.mark_sent(s, confirmation_id=confirmation_id)

    def _consume(self, confirmation_id: str, decision: str, edited_hash: str | None) -> bool:
        with self.db.session() as s:
            return confirmations.mark_used(
                s, confirmation_id=confirmation_id, decision=decision, edited_args_hash=edited_hash
            )

    # ---- 1. open -------------------------------------------------------------------------
    async def open(
        self,
        p: PendingCall,
        ctx: AgentContext,
        contract: Mapping[str, Any],
        metadata: dict[str, Any],
    ) -> None:
        """Store the row, audit the request, and put the card's data on the pending call."""
        name, args, env_id = p["tool_name"], p["tool_args"], p.get("env_id")
        expires = datetime.now(UTC) + timedelta(seconds=self.ttl_s)
        countdown = int(contract.get("countdown_s") or 0)
        cid = await asyncio.to_thread(
            self._create,
            conv_id=ctx.conv_id,
            user_id=ctx.user_id,
            tool_name=name,
            call_id=p["call_id"],
            args_hash=args_hash(name, args, env_id),
            env_id=env_id,
            risk_level=contract["risk_level"],
            countdown_s=countdown,
            expires_at=expires,
        )
        await self.audit.record(
            kind="confirm_requested",
            decision="confirm",
            reason=contract["risk_level"],
            args=args,
            **call_row(ctx, name, env_id),
        )
        p["confirmation_id"] = cid
        p["metadata"] = metadata
        p["countdown_s"] = countdown
        p["expires_at"] = expires.isoformat()

    # ---- 2. shown ------------------------------------------------------------------------
    async def shown(self, confirmation_id: str) -> None:
        """The card left the server: its countdown starts now."""
        await asyncio.to_thread(self._shown, confirmation_id)

    # ---- 3. answer -----------------------------------------------------------------------
    async def tool_of(self, confirmation_id: str, *, conv_id: str, user_id: str) -> str | None:
        """The tool a confirmation of this conversation and user is for (None: no such
        row): an edited answer is checked against its args model before it is consumed."""
        record = await asyncio.to_thread(self._load, confirmation_id)
        if record is None or record.conv_id != conv_id or record.user_id != user_id:
            return None
        return record.tool_name

    async def answer(
        self,
        graph: Any,
        *,
        principal: Principal,
        conv_id: str,
        confirmation_id: str,
        decision: str,
        args: Mapping[str, Any] | None = None,
        used_as: str | None = None,
    ) -> ConfirmationRecord:
        """Check ``principal``'s answer to the confirmation and consume it (see the module
        docstring, step 3); a refusal raises ``ConfirmationError`` (audited). ``used_as``:
        what the row records instead of the decision (a spent one: ``superseded``)."""
        async with self._refusal_audited(principal, conv_id, confirmation_id, decision):
            if decision not in ("confirm", "deny"):
                raise ConfirmationError("decision must be 'confirm' or 'deny'", "mismatch")
            record = await asyncio.to_thread(self._load, confirmation_id)
            if record is None:
                raise ConfirmationError("unknown confirmation", "unknown")
            if record.conv_id != conv_id:
                raise ConfirmationError("confirmation belongs to another conversation", "mismatch")
            if record.user_id != principal.user_id:
                raise ConfirmationError("confirmation belongs to another user", "foreign_user")
            if record.used_at is not None:
                raise ConfirmationError("confirmation was already used", "replayed")
            now = datetime.now(UTC)
            if now > record.expires_at:
                raise ConfirmationError("confirmation expired; ask again", "expired")
            await self._is_pending(graph, record)
            waited = (now - record.sent_at).total_seconds()
            if decision == "confirm" and waited < record.countdown_s:
                raise ConfirmationError(
                    f"a dangerous operation can be confirmed only {record.countdown_s} s after "
                    "it was shown",
                    "too_early",
                )
            edited = None if args is None else edit_hash(record.tool_name, args)
            if not await asyncio.to_thread(
                self._consume, confirmation_id, used_as or decision, edited
            ):
                raise ConfirmationError("confirmation was already used", "replayed")
            return ConfirmationRecord(**{**record.as_dict(), "edited_args_hash": edited})

    @staticmethod
    async def _is_pending(graph: Any, record: ConfirmationRecord) -> None:
        """The record is the conversation's pending interrupt, for the call as it waits."""
        state = await graph.aget_state({"configurable": {"thread_id": record.conv_id}})
        current = [i.value for i in state.interrupts if isinstance(i.value, dict)]
        if not current:
            raise ConfirmationError("nothing is waiting for confirmation", "not_pending")
        if current[0].get("confirmation_id") != record.id:
            raise ConfirmationError("this is not the pending confirmation", "mismatch")
        call = next(
            (p for p in state.values.get("pending") or [] if p.get("confirmation_id") == record.id),
            None,
        )
        if (
            call is None
            or call["tool_name"] != record.tool_name
            or args_hash(call["tool_name"], call["tool_args"], call.get("env_id"))
            != record.args_hash
        ):
            raise ConfirmationError("the pending call does not match this confirmation", "mismatch")

    async def bound(self, p: PendingCall) -> bool:
        """The edited arguments ``p`` carries are the ones its consumed confirmation
        recorded (only those may run)."""
        cid = p.get("confirmation_id")
        record = None if not cid else await asyncio.to_thread(self._load, cid)
        recorded = None if record is None else record.edited_args_hash
        return recorded == edit_hash(p["tool_name"], dict(p.get("edited_args") or {}))

    # ---- 4. spend ------------------------------------------------------------------------
    async def spend(self, graph: Any, principal: Principal, conv_id: str, cid: str) -> None:
        """Withdraw a pending confirmation (a new message, a stop): consumed as superseded,
        so it can never be confirmed; one already settled stays as it is."""
        try:
            await self.answer(
                graph,
                principal=principal,
                conv_id=conv_id,
                confirmation_id=cid,
                decision="deny",
                used_as=SUPERSEDED,
            )
        except ConfirmationError as exc:  # already used or expired: nothing left to spend
            cot_logger.reason("withdrawn confirmation was already settled", why=exc.reason)

    @asynccontextmanager
    async def _refusal_audited(
        self, principal: Principal, conv_id: str, confirmation_id: str, decision: str
    ) -> AsyncIterator[None]:
        """A ``ConfirmationError`` raised inside gets its audit row, then goes on."""
        try:
            yield
        except ConfirmationError as exc:
            await self.audit.record(
                kind="confirmation_refused",
                decision="refused",
                reason=f"{exc.reason}: {exc}",
                args={"confirmation_id": confirmation_id[:8] + "…", "decision": decision},
                **principal.audit_row(conv_id=conv_id),
            )
            raise
