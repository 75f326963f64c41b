"""Confirmation integrity: a confirmation id is bound to conversation, user, tool, args hash
and target env; it is single-use, expires, and a dangerous call cannot be confirmed
before its countdown has run on the server's clock. Confirmed with edited arguments, the
consumed row also records their hash, and only those arguments run (``app.agent.edit``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from app.agent.audit import audit
from app.agent.pending import args_hash, edit_hash
from app.auth import Principal
from app.errors import ConfirmationError
from app.settings import get_settings
from app.store import confirmations
from app.store.db import session_scope
from app.store.models import Confirmation


def _utc(ts: datetime | None) -> datetime | None:
    if ts is None:
        return None
    return ts if ts.tzinfo else ts.replace(tzinfo=UTC)


def mark_sent(confirmation_id: str) -> None:
    """Record when the confirm_required event left the server (starts the dangerous gate)."""
    with session_scope() as s:
        row = s.get(Confirmation, confirmation_id)
        if row is not None and row.used_at is None:
            row.sent_at = datetime.now(UTC)
            s.add(row)


def _load(confirmation_id: str) -> dict[str, Any] | None:
    with session_scope() as s:
        row = s.get(Confirmation, confirmation_id)
        return None if row is None else row.model_dump()


def _consume(confirmation_id: str, decision: str, edited_hash: str | None) -> bool:
    with session_scope() as s:
        return bool(
            confirmations.mark_used(
                s, confirmation_id=confirmation_id, decision=decision, edited_args_hash=edited_hash
            )
        )


async def confirmation_tool(confirmation_id: str, *, conv_id: str, user_id: str) -> str | None:
    """The tool a confirmation of this conversation and user is for (None: no such row)."""
    row = await asyncio.to_thread(_load, confirmation_id)
    if row is None or row["conv_id"] != conv_id or row["user_id"] != user_id:
        return None
    return str(row["tool_name"])


async def check_confirmation(
    graph: Any,
    *,
    conv_id: str,
    principal: Principal,
    confirmation_id: str,
    decision: str,
    used_as: str | None = None,
    edited_args: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Validate and consume a confirmation; raise ConfirmationError (with an audit row).
    ``edited_args``: a confirm with edited arguments; the consumed row keeps their hash
    (``app.agent.edit.edit_hash``) and the run is bound to them."""
    try:
        return await _check(
            graph,
            conv_id=conv_id,
            principal=principal,
            confirmation_id=confirmation_id,
            decision=decision,
            used_as=used_as,
            edited_args=edited_args,
        )
    except ConfirmationError as exc:
        await audit(
            kind="confirmation_refused",
            user=principal.user_id,
            role=principal.role,
            conv_id=conv_id,
            decision="refused",
            reason=f"{exc.reason}: {exc}",
            args={"confirmation_id": confirmation_id[:8] + "…", "decision": decision},
        )
        raise


async def _check(
    graph: Any,
    *,
    conv_id: str,
    principal: Principal,
    confirmation_id: str,
    decision: str,
    used_as: str | None,
    edited_args: Mapping[str, Any] | None,
) -> dict[str, Any]:
    if decision not in ("confirm", "deny"):
        raise ConfirmationError("decision must be 'confirm' or 'deny'", "mismatch")
    row = await asyncio.to_thread(_load, confirmation_id)
    if row is None:
        raise ConfirmationError("unknown confirmation", "unknown")
    if row["conv_id"] != conv_id:
        raise ConfirmationError("confirmation belongs to another conversation", "mismatch")
    if row["user_id"] != principal.user_id:
        raise ConfirmationError("confirmation belongs to another user", "foreign_user")
    if row["used_at"] is not None:
        raise ConfirmationError("confirmation was already used", "replayed")
    now = datetime.now(UTC)
    if now > _utc(row["expires_at"]):
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
        or args_hash(call["tool_name"], call["tool_args"], call.get("env_id")) != row["args_hash"]
        or call["tool_name"] != row["tool_name"]
    ):
        raise ConfirmationError("the pending call does not match this confirmation", "mismatch")
    if decision == "confirm" and row["risk_level"] == "dangerous":
        sent = _utc(row["sent_at"])
        wait = get_settings().dangerous_countdown_s
        if sent is None or (now - sent).total_seconds() < wait:
            raise ConfirmationError(
                f"a dangerous operation can be confirmed only {wait} s after it was shown",
                "too_early",
            )
    edited = None if edited_args is None else edit_hash(row["tool_name"], edited_args)
    if not await asyncio.to_thread(_consume, confirmation_id, used_as or decision, edited):
        raise ConfirmationError("confirmation was already used", "replayed")
    row["edited_args_hash"] = edited
    return row
