"""Confirmation integrity: a confirmation id is bound to conversation, user, tool, args hash
and target env; it is single-use, expires, and a dangerous call cannot be confirmed
before its countdown has run on the server's clock. Confirmed with edited arguments, the
consumed row also records their hash, and only those arguments run (``app.agent.edit``).

:class:`Confirmations` (one per agent core) is the confirmation rows' I/O: opening one for
a checked call, marking it sent, checking and consuming an answer.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from app.agent.audit import AuditWriter
from app.agent.pending import args_hash, call_row, edit_hash
from app.agent.state import AgentContext, PendingCall
from app.auth import Principal
from app.errors import ConfirmationError
from app.store import confirmations
from app.store.db import Database
from app.store.models import Confirmation, as_utc


def _utc(ts: datetime | None) -> datetime | None:
    return None if ts is None else as_utc(ts)


@dataclass(frozen=True, kw_only=True)
class ResumeInput:
    """A person's answer to a confirmation as a door received it, not yet checked:
    ``prepare_resume`` checks its fields, :meth:`Confirmations.check` the confirmation.
    ``args``: the arguments edited before approving (None: as shown)."""

    conv_id: str
    confirmation_id: str
    decision: str
    reason: str | None = None
    args: Mapping[str, Any] | None = None


class Confirmations:
    """The confirmation rows of ``db``: ``ttl_s`` until one expires, ``countdown_s``
    before a dangerous one may be confirmed; refusals are audited through ``audit``."""

    def __init__(self, db: Database, audit: AuditWriter, *, ttl_s: float, countdown_s: int) -> None:
        self.db = db
        self.audit = audit
        self.ttl_s = ttl_s
        self.countdown_s = countdown_s

    # ---- rows ---------------------------------------------------------------------------
    def _create(self, **fields: Any) -> str:
        with self.db.session() as s:
            return str(confirmations.create(s, **fields).id)

    def mark_sent(self, confirmation_id: str) -> None:
        """Record when the confirm_required event left the server (starts the dangerous
        gate). Blocking."""
        with self.db.session() as s:
            row = s.get(Confirmation, confirmation_id)
            if row is not None and row.used_at is None:
                row.sent_at = datetime.now(UTC)
                s.add(row)

    def _load(self, confirmation_id: str) -> dict[str, Any] | None:
        with self.db.session() as s:
            row = s.get(Confirmation, confirmation_id)
            return None if row is None else row.model_dump()

    def _consume(self, confirmation_id: str, decision: str, edited_hash: str | None) -> bool:
        with self.db.session() as s:
            return bool(
                confirmations.mark_used(
                    s,
                    confirmation_id=confirmation_id,
                    decision=decision,
                    edited_args_hash=edited_hash,
                )
            )

    def _edit_hash_of(self, confirmation_id: str) -> str | None:
        with self.db.session() as s:
            row = confirmations.get(s, confirmation_id=confirmation_id)
            return None if row is None else row.edited_args_hash

    async def edit_hash_of(self, confirmation_id: str | None) -> str | None:
        """The hash of the edited arguments a consumed confirmation recorded."""
        if not confirmation_id:
            return None
        return await asyncio.to_thread(self._edit_hash_of, confirmation_id)

    async def tool_of(self, confirmation_id: str, *, conv_id: str, user_id: str) -> str | None:
        """The tool a confirmation of this conversation and user is for (None: no such
        row)."""
        row = await asyncio.to_thread(self._load, confirmation_id)
        if row is None or row["conv_id"] != conv_id or row["user_id"] != user_id:
            return None
        return str(row["tool_name"])

    # ---- asking a person ----------------------------------------------------------------
    async def open(
        self,
        p: PendingCall,
        ctx: AgentContext,
        contract: dict[str, Any],
        metadata: dict[str, Any],
    ) -> None:
        """Store the confirmation row (bound to conversation, user, tool, args hash and
        env), audit the request and put the card's data on the pending call."""
        name, args, env_id = p["tool_name"], p["tool_args"], p.get("env_id")
        now = datetime.now(UTC)
        expires = now + timedelta(seconds=self.ttl_s)
        countdown = self.countdown_s if contract.get("dangerous") else 0
        cid = await asyncio.to_thread(
            self._create,
            conv_id=ctx.conv_id,
            user_id=ctx.user_id,
            tool_name=name,
            call_id=p["call_id"],
            args_hash=args_hash(name, args, env_id),
            env_id=env_id,
            risk_level=contract["risk_level"],
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

    # ---- a person's answer --------------------------------------------------------------
    async def check(
        self, graph: Any, answer: ResumeInput, *, principal: Principal, used_as: str | None = None
    ) -> dict[str, Any]:
        """Validate and consume the confirmation ``answer`` is to (``principal``'s); raise
        ConfirmationError (with an audit row). A confirm with edited ``answer.args``: the
        consumed row keeps their hash (``app.agent.pending.edit_hash``) and the run is
        bound to them. ``used_as``: what the row records instead of the decision."""
        conv_id, confirmation_id, decision = answer.conv_id, answer.confirmation_id, answer.decision
        async with self._refusal_audited(principal, answer):
            if decision not in ("confirm", "deny"):
                raise ConfirmationError("decision must be 'confirm' or 'deny'", "mismatch")
            row = await asyncio.to_thread(self._load, confirmation_id)
            if row is None:
                raise ConfirmationError("unknown confirmation", "unknown")
            if row["conv_id"] != conv_id:
                raise ConfirmationError("confirmation belongs to another conversation", "mismatch")
            if row["user_id"] != principal.user_id:
                raise ConfirmationError("confirmation belongs to another user", "foreign_user")
            if row["used_at"] is not None:
                raise ConfirmationError("confirmation was already used", "replayed")
            now = datetime.now(UTC)
            if now > as_utc(row["expires_at"]):
                raise ConfirmationError("confirmation expired; ask again", "expired")
            state = await graph.aget_state({"configurable": {"thread_id": conv_id}})
            current = [i.value for i in state.interrupts if isinstance(i.value, dict)]
            if not current:
                raise ConfirmationError("nothing is waiting for confirmation", "not_pending")
            if current[0].get("confirmation_id") != confirmation_id:
                raise ConfirmationError("this is not the pending confirmation", "mismatch")
            call = next(
                (
                    p
                    for p in state.values.get("pending") or []
                    if p.get("confirmation_id") == confirmation_id
                ),
                None,
            )
            if (
                call is None
                or args_hash(call["tool_name"], call["tool_args"], call.get("env_id"))
                != row["args_hash"]
                or call["tool_name"] != row["tool_name"]
            ):
                raise ConfirmationError(
                    "the pending call does not match this confirmation", "mismatch"
                )
            if decision == "confirm" and row["risk_level"] == "dangerous":
                sent = _utc(row["sent_at"])
                wait = self.countdown_s
                if sent is None or (now - sent).total_seconds() < wait:
                    raise ConfirmationError(
                        f"a dangerous operation can be confirmed only {wait} s after it was shown",
                        "too_early",
                    )
            edited = None if answer.args is None else edit_hash(row["tool_name"], answer.args)
            if not await asyncio.to_thread(
                self._consume, confirmation_id, used_as or decision, edited
            ):
                raise ConfirmationError("confirmation was already used", "replayed")
            row["edited_args_hash"] = edited
            return row

    @asynccontextmanager
    async def _refusal_audited(
        self, principal: Principal, answer: ResumeInput
    ) -> AsyncIterator[None]:
        """A ``ConfirmationError`` raised inside gets its audit row, then goes on."""
        try:
            yield
        except ConfirmationError as exc:
            await self.audit.record(
                kind="confirmation_refused",
                decision="refused",
                reason=f"{exc.reason}: {exc}",
                args={
                    "confirmation_id": answer.confirmation_id[:8] + "…",
                    "decision": answer.decision,
                },
                **principal.audit_row(conv_id=answer.conv_id),
            )
            raise
