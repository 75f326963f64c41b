"""The product's tables (SQLModel). UUID or string keys, timezone-aware UTC timestamps
(``app.store.columns``). ``AuditEvent``, append-only, lives with its guards in
``app.store.audit_event``; the tables of approvals, undo records and Superset links live
with their store modules. The small row helpers are ``app.store.rows``; the clock's two
helpers (``utcnow``, ``as_utc``) are importable here too, beside the tables they stamp.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import Text
from sqlmodel import Field, SQLModel

from app.store.audit_event import AuditEvent
from app.store.columns import JsonType, UTCDateTime, as_utc, confirmation_id, utcnow, uuid_hex

__all__ = [
    "AuditEvent",
    "Backup",
    "Confirmation",
    "Conversation",
    "LoginThrottle",
    "Maintenance",
    "PageSession",
    "RunSignal",
    "RunSlot",
    "Task",
    "User",
    "UserRate",
    "as_utc",
    "utcnow",
]


class User(SQLModel, table=True):
    __tablename__ = "app_user"

    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    username: str = Field(unique=True, index=True)
    role: str
    password_hash: str
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    disabled: bool = False
    # new at every credential change (password, role, disable; a new account): a token or
    # page session carries the stamp it was issued under, so a credential change ends them
    token_stamp: str | None = Field(default_factory=lambda: secrets.token_urlsafe(12))
    # the Superset username this user acts as on identity = "assertion" environments: set
    # by an operator (main.py users set-superset-username), never guessed from a name
    superset_username: str | None = None


class Task(SQLModel, table=True):
    """A long-running job (migration, backup, restore) driven by a worker."""

    __tablename__ = "task"

    id: str = Field(default_factory=uuid_hex, primary_key=True)
    kind: str = Field(index=True)
    status: str = Field(default="queued", index=True)
    step: int = 0
    total: int = 0
    message: str = Field(default="", sa_type=Text)
    result: dict[str, Any] | list[Any] | None = Field(default=None, sa_type=JsonType)
    error: str | None = Field(default=None, sa_type=Text)
    user: str | None = Field(default=None, index=True)
    conv_id: str | None = Field(default=None, index=True)
    env_id: str | None = None
    owner: str | None = Field(default=None, index=True)  # "host:pid" of the running process
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)


class Maintenance(SQLModel, table=True):
    __tablename__ = "maintenance"

    id: uuid.UUID = Field(default_factory=uuid.uuid4, primary_key=True)
    env_id: str = Field(index=True)
    started_by: str
    reason: str = Field(default="", sa_type=Text)
    started_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    ends_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    ended_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    ended_by: str | None = None


class Confirmation(SQLModel, table=True):
    """A pending person's confirmation of one tool call; single use."""

    __tablename__ = "confirmation"

    id: str = Field(default_factory=confirmation_id, primary_key=True)
    conv_id: str = Field(index=True)
    user_id: str
    tool_name: str
    call_id: str
    args_hash: str
    env_id: str | None = None
    risk_level: str
    countdown_s: int = 0  # a dangerous call's wait before it may be confirmed (policy's)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    sent_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    expires_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    used_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    decision: str | None = None
    edited_args_hash: str | None = None  # set when confirmed with edited arguments


class Conversation(SQLModel, table=True):
    """A conversation's metadata (its messages live in the LangGraph checkpoint)."""

    __tablename__ = "conversation"

    conv_id: str = Field(primary_key=True)
    owner: str = Field(index=True)
    title: str = Field(default="", sa_type=Text)
    object_type: str | None = None
    env_id: str | None = None
    pending_confirmation: bool = False
    archived: bool = Field(default=False, index=True)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    updated_at: datetime = Field(
        default_factory=utcnow, sa_type=UTCDateTime, nullable=False, index=True
    )


class UserRate(SQLModel, table=True):
    """One user's pace of one kind of request (``turn:<user>`` / ``call:<user>``), for
    every replica (``app.store.user_rates``): ``tat`` is when the user's bucket is full
    again (epoch seconds; the "theoretical arrival time" of a GCRA limiter)."""

    __tablename__ = "user_rate"

    key: str = Field(primary_key=True)
    tat: float = Field(default=0.0, index=True)
    allowed: bool = True  # the latest request's answer (set by the same statement)


class RunSlot(SQLModel, table=True):
    """One of a user's slots for running turns (``app.store.run_slots``): numbered
    ``0 .. user_max_running - 1``, held by one run (``lease``) until it ends or its
    ``expires_at`` (epoch seconds) passes without a renewal (a replica that died)."""

    __tablename__ = "run_slot"

    user_key: str = Field(primary_key=True)
    slot: int = Field(primary_key=True)
    lease: str
    holder: str  # the replica and process that runs it (``app.replica.replica_id``)
    conv_id: str | None = None
    expires_at: float = Field(index=True)


class Backup(SQLModel, table=True):
    __tablename__ = "backup"

    id: str = Field(default_factory=uuid_hex, primary_key=True)
    env_id: str = Field(index=True)
    dashboard_ids: list[str] = Field(default_factory=list, sa_type=JsonType, nullable=False)
    path: str
    size_bytes: int = 0
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    created_by: str
    note: str = Field(default="", sa_type=Text)
    task_id: str | None = None


class PageSession(SQLModel, table=True):
    """A signed-in browser of the pages, or a one-time sign-in ticket (``kind``).

    The key is a SHA-256 of NiceGUI's browser id (or of the ticket), so neither the table
    nor the page storage on disk holds anything a visitor could replay."""

    __tablename__ = "page_session"

    key_hash: str = Field(primary_key=True)
    kind: str = Field(index=True)  # "session" | "ticket"
    username: str = Field(index=True)
    role: str
    bound_to: str | None = None  # a ticket: the hash of the browser id that signed in
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    expires_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    ended_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    stamp: str | None = None  # the user's token stamp at sign-in (User.token_stamp)


class LoginThrottle(SQLModel, table=True):
    """Sign-in attempts of one username (``user:<name>``) or one client (``client:<ip>``)
    in the current window, counted before the password is checked (``failures``; a
    success clears or refunds its own); shared by every replica through the database.
    ``allowed`` and ``closed_failures`` answer the latest attempt (``app.store.login_throttle``)."""

    __tablename__ = "login_throttle"

    key: str = Field(primary_key=True)
    window_start: datetime = Field(sa_type=UTCDateTime, nullable=False)
    failures: int = 0
    blocked_until: datetime | None = Field(default=None, sa_type=UTCDateTime)
    allowed: bool = True
    closed_failures: int = 0
    updated_at: datetime = Field(
        default_factory=utcnow, sa_type=UTCDateTime, nullable=False, index=True
    )


class RunSignal(SQLModel, table=True):
    """A conversation's running turn, for the other replicas (``app.store.run_signals``):
    where it runs (``replica``: ``app.replica.replica_id``), for whom, a heartbeat, and a
    stop asked from any replica with the running replica's answer (``stopped_at``, the
    writes it let run on). One row per conversation (one run at a time: the run lock);
    deleted when the run ends."""

    __tablename__ = "run_signal"

    conv_id: str = Field(primary_key=True)
    run_id: str = Field(default_factory=uuid_hex)
    replica: str = Field(index=True)
    user_id: str | None = None
    started_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False)
    heartbeat_at: datetime = Field(
        default_factory=utcnow, sa_type=UTCDateTime, nullable=False, index=True
    )
    stop_requested_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    stop_requested_by: str | None = None
    stopped_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    writes_in_flight: list[dict[str, Any]] | None = Field(default=None, sa_type=JsonType)
