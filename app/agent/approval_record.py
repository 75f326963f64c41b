"""A request for a second person's approval (four-eyes) as the product reads it: its row
as an :class:`ApprovalRecord` (and the view every door shows of it), and the confirm
step's interrupt that waits for it (:func:`is_approval`, :func:`awaiting_event`: the
``awaiting_approval`` event the live stream and the conversation's read model build)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from app.auth import Principal
from app.events import AwaitingApprovalEvent, ConfirmMetadataV2
from app.store.approvals import ApprovalRequest

#: the ``kind`` of the confirm step's interrupt that waits for a second person
AWAITING = "awaiting_approval"


def is_approval(value: Any) -> bool:
    """Whether an interrupt's value is a wait for a second person (not a confirmation)."""
    return isinstance(value, Mapping) and value.get("kind") == AWAITING


@dataclass(frozen=True)
class ApprovalRecord:
    """One request as its row holds it (times are timezone-aware UTC)."""

    id: str
    conv_id: str
    call_id: str
    confirmation_id: str | None
    tool_name: str
    args: dict[str, Any]
    args_hash: str
    env_id: str | None
    tier: str | None
    risk: str
    risk_level: str
    card: dict[str, Any]
    requester: str
    requester_role: str
    requester_source: str
    channel: str | None
    client: str | None
    created_at: datetime
    expires_at: datetime
    status: str
    decided_by: str | None
    decided_at: datetime | None
    reason: str | None
    outcome: str | None
    finished_at: datetime | None

    @classmethod
    def of(cls, row: ApprovalRequest) -> ApprovalRecord:
        return cls(**{f.name: getattr(row, f.name) for f in fields(cls)})

    @property
    def requester_principal(self) -> Principal:
        """The requester as recorded (the core reads their current role before a run)."""
        if self.requester_source == "external":
            return Principal(user_id=self.requester, role=self.requester_role, source="external")
        return Principal(user_id=self.requester, role=self.requester_role)

    def view(self, *, may_decide: bool = False) -> dict[str, Any]:
        """The request as the doors show it (``GET /api/approvals``, the page, MCP)."""

        def when(value: datetime | None) -> str | None:
            return None if value is None else value.isoformat(timespec="seconds")

        return {
            "id": self.id,
            "status": self.status,
            "outcome": self.outcome,
            "tool": self.tool_name,
            "args": self.args,
            "env_id": self.env_id,
            "tier": self.tier,
            "risk": self.risk,
            "risk_level": self.risk_level,
            "requester": self.requester,
            "requester_role": self.requester_role,
            "conv_id": self.conv_id,
            "call_id": self.call_id,
            "channel": self.channel,
            "created_at": when(self.created_at),
            "expires_at": when(self.expires_at),
            "decided_by": self.decided_by,
            "decided_at": when(self.decided_at),
            "reason": self.reason,
            "finished_at": when(self.finished_at),
            "card": self.card,
            "may_decide": may_decide,
        }


def awaiting_event(value: Mapping[str, Any], conv_id: str = "") -> AwaitingApprovalEvent:
    """The ``awaiting_approval`` event of one wait's interrupt value (the live stream and
    the conversation's read model build it the same way)."""
    meta = value.get("metadata") or None
    return AwaitingApprovalEvent(
        conv_id=conv_id,
        approval_id=value["approval_id"],
        call_id=value["call_id"],
        tool_name=value["tool_name"],
        tool_args=dict(value.get("tool_args") or {}),
        env_id=value.get("env_id"),
        env_context=value.get("env_context"),
        risk_level=value.get("risk_level") or "guarded",
        requester=value.get("requester") or "",
        expires_at=value.get("expires_at") or "",
        metadata=ConfirmMetadataV2.model_validate(meta) if meta else None,
    )
