"""A checked call waiting to run: its record in the graph state and, when a person must
confirm it, the single-use confirmation row bound to it (see ``app.agent.confirm``)."""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from app.agent.audit import audit
from app.agent.state import AgentContext, PendingCall
from app.settings import get_settings
from app.store import confirmations
from app.store.db import session_scope


def args_hash(tool_name: str, tool_args: dict[str, Any], env_id: str | None) -> str:
    blob = json.dumps([tool_name, tool_args, env_id], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


def edit_hash(tool_name: str, args: Mapping[str, Any]) -> str:
    """The hash a consumed confirmation keeps of the arguments a person edited."""
    return args_hash(tool_name, dict(args), None)


def pending_call(
    call: dict[str, Any],
    contract: dict[str, Any],
    risk: str,
    *,
    source: str,
    selected_env: str | None,
) -> PendingCall:
    """The call as the tool node will run it: on ``contract``'s environment (the one the
    card names; ``source`` says where it came from), with the page's environment beside
    it. A call needing no person is confirmed already."""
    needs = bool(contract.get("requires_confirmation"))
    return {
        "call_id": call["id"],
        "tool_name": call["name"],
        "tool_args": contract["tool_args"],
        "env_id": contract.get("env_id"),
        "env_source": source,
        "selected_env": selected_env,
        "risk": risk,
        "risk_level": contract["risk_level"],
        "read_only": risk == "read",
        "needs_confirmation": needs,
        "confirmation_id": None,
        "decision": None if needs else "confirm",
        "reason": None,
    }


def _new_confirmation(**fields: Any) -> str:
    with session_scope() as s:
        row = confirmations.create(s, **fields)
        return str(row.id)


async def open_confirmation(
    p: PendingCall, ctx: AgentContext, contract: dict[str, Any], metadata: dict[str, Any]
) -> None:
    """Store the confirmation row (bound to conversation, user, tool, args hash and env),
    audit the request and put the card's data on the pending call."""
    settings = get_settings()
    name, args, env_id = p["tool_name"], p["tool_args"], p.get("env_id")
    now = datetime.now(UTC)
    expires = now + timedelta(seconds=settings.confirmation_ttl_s)
    countdown = settings.dangerous_countdown_s if contract.get("dangerous") else 0
    cid = await asyncio.to_thread(
        _new_confirmation,
        conv_id=ctx.conv_id,
        user_id=ctx.user_id,
        tool_name=name,
        call_id=p["call_id"],
        args_hash=args_hash(name, args, env_id),
        env_id=env_id,
        risk_level=contract["risk_level"],
        expires_at=expires,
    )
    await audit(
        kind="confirm_requested",
        user=ctx.user_id,
        role=ctx.role,
        conv_id=ctx.conv_id,
        tool=name,
        env=env_id,
        decision="confirm",
        reason=contract["risk_level"],
        args=args,
    )
    p["confirmation_id"] = cid
    p["metadata"] = metadata
    p["countdown_s"] = countdown
    p["expires_at"] = expires.isoformat()
