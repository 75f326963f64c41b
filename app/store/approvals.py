"""Requests for a second person's approval (four-eyes): one durable row per confirmed call
that policy says a second person must approve before it runs.

A row holds what the approver is shown and what the approval is bound to: the tool, its
arguments and their hash, the environment and its tier, the risk, the card as the
requester confirmed it (the preflight's diff among its details), the requester, the
conversation, the door, and when it expires. Its ``status`` moves once, by a conditional
UPDATE, from ``pending`` to ``approved``, ``denied``, ``withdrawn`` or ``expired``: of
two racing decisions exactly one wins. After an approved call's run, ``outcome`` says how
it ended (``completed``, ``failed``, ``refused``, ``cancelled``, ``timeout``).
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, update
from sqlmodel import Field, Session, SQLModel, col, select

from app.store.columns import JsonType, UTCDateTime, utcnow
from app.store.rows import changed, moment_of, new_row

PENDING = "pending"
DECIDED = ("approved", "denied", "withdrawn", "expired")


class ApprovalRequest(SQLModel, table=True):
    """One call waiting for (or decided by) a second person."""

    __tablename__ = "approval_request"

    id: str = Field(default_factory=lambda: uuid.uuid4().hex, primary_key=True)
    conv_id: str = Field(index=True)
    call_id: str
    confirmation_id: str | None = None  # the requester's own confirmation (consumed)
    tool_name: str
    args: dict[str, Any] = Field(default_factory=dict, sa_type=JsonType)
    args_hash: str
    env_id: str | None = None
    tier: str | None = None
    risk: str
    risk_level: str
    card: dict[str, Any] = Field(default_factory=dict, sa_type=JsonType)  # the card as shown
    requester: str = Field(index=True)
    requester_role: str
    requester_source: str = "local"
    channel: str | None = None  # the door the request came through
    client: str | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    expires_at: datetime = Field(sa_type=UTCDateTime, nullable=False, index=True)
    status: str = Field(default=PENDING, index=True)
    decided_by: str | None = None
    decided_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    reason: str | None = None
    outcome: str | None = None
    finished_at: datetime | None = Field(default=None, sa_type=UTCDateTime)


def create(session: Session, *, ttl_s: float, now: datetime | None = None, **fields: Any) -> str:
    """A new pending request (``fields``: the row's columns); expires ``ttl_s`` from now."""
    moment = moment_of(now)
    row = new_row(
        session,
        ApprovalRequest,
        created_at=moment,
        expires_at=moment + timedelta(seconds=ttl_s),
        **fields,
    )
    return row.id


def get(session: Session, *, approval_id: str) -> ApprovalRequest | None:
    return session.get(ApprovalRequest, approval_id)


def decide(
    session: Session,
    *,
    approval_id: str,
    status: str,
    by: str | None,
    reason: str | None = None,
    now: datetime | None = None,
) -> bool:
    """Move a pending, unexpired request to ``status`` once; True only for the caller whose
    UPDATE changed it (a replay or a racing second decision gets False). ``expired`` is
    the one status an expired row may take."""
    if status not in DECIDED:
        raise ValueError(f"unknown approval status {status!r}")
    moment = moment_of(now)
    where = [col(ApprovalRequest.id) == approval_id, col(ApprovalRequest.status) == PENDING]
    if status != "expired":
        where.append(col(ApprovalRequest.expires_at) > moment)
    stmt = (
        update(ApprovalRequest)
        .where(*where)
        .values(status=status, decided_by=by, decided_at=moment, reason=reason)
        .execution_options(synchronize_session="fetch")
    )
    return changed(session.execute(stmt)) == 1


def finish(session: Session, *, approval_id: str, outcome: str) -> None:
    """Record how an approved call's run ended (once)."""
    stmt = (
        update(ApprovalRequest)
        .where(col(ApprovalRequest.id) == approval_id, col(ApprovalRequest.outcome).is_(None))
        .values(outcome=outcome, finished_at=utcnow())
        .execution_options(synchronize_session="fetch")
    )
    session.execute(stmt)


def overdue(session: Session, *, now: datetime | None = None, limit: int = 200) -> list[str]:
    """Ids of pending requests whose time is up (to be marked ``expired``)."""
    stmt = (
        select(ApprovalRequest.id)
        .where(
            col(ApprovalRequest.status) == PENDING,
            col(ApprovalRequest.expires_at) <= moment_of(now),
        )
        .limit(limit)
    )
    return list(session.exec(stmt).all())


def listed(
    session: Session,
    *,
    requester: str | None = None,
    statuses: tuple[str, ...] = (PENDING,),
    limit: int = 100,
) -> list[ApprovalRequest]:
    """Requests of ``statuses`` (all of them: ``()``), newest first; only ``requester``'s
    when given."""
    stmt = select(ApprovalRequest)
    if statuses:
        stmt = stmt.where(col(ApprovalRequest.status).in_(statuses))
    if requester is not None:
        stmt = stmt.where(col(ApprovalRequest.requester) == requester)
    stmt = stmt.order_by(col(ApprovalRequest.created_at).desc()).limit(limit)
    return list(session.exec(stmt).all())


def count_waiting(session: Session, *, not_of: str, now: datetime | None = None) -> int:
    """Pending, unexpired requests that ``not_of`` did not make (what they could approve)."""
    stmt = (
        select(func.count())
        .select_from(ApprovalRequest)
        .where(
            col(ApprovalRequest.status) == PENDING,
            col(ApprovalRequest.expires_at) > moment_of(now),
            col(ApprovalRequest.requester) != not_of,
        )
    )
    return int(session.exec(stmt).one())
