"""The shared vocabulary: every literal more than one part of the product speaks.

A leaf module (imports only ``typing``): policy, agent, tools, store, screen, components
and the doors all take their words from here, so a risk level, a tier or an event kind
is spelled in exactly one place.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

# ---- tools and risk ------------------------------------------------------------------
Risk = Literal["read", "write", "delete"]
RiskLevel = Literal["safe", "guarded", "dangerous"]
RISK_LEVEL: Final[dict[str, RiskLevel]] = {
    "read": "safe",
    "write": "guarded",
    "delete": "dangerous",
}
RISK_ORDER: Final[tuple[Risk, ...]] = ("read", "write", "delete")
Confirm = Literal["auto", "always", "never"]
Presentation = Literal["text", "table", "linked_list", "health", "facts", "tasks", "diff"]
#: whether what a write changes can be undone (an ``undo`` offer on its result) or not
Undo = Literal["undoable", "final"]

# ---- SQL --------------------------------------------------------------------------
#: The most tokens one reading of a SQL text parses (policy rates a longer text dangerous
#: without parsing it; the client refuses to send one it cannot rate).
SQL_MAX_CLASSIFIED_TOKENS: Final = 10_000

# ---- environments --------------------------------------------------------------------
EnvTier = Literal["dev", "staging", "prod"]
ENV_TIERS: Final[tuple[EnvTier, ...]] = get_args(EnvTier)
ENV_ID_PATTERN: Final = r"^[A-Za-z0-9_.-]{1,64}$"
CONV_ID_PATTERN: Final = r"^[A-Za-z0-9_.:-]{1,128}$"

#: The reason of the calls a stop cancelled (a person's Cancel gives its own, or none).
STOPPED_REASON: Final = "the turn was stopped"

# ---- page context --------------------------------------------------------------------
ObjectType = Literal["dashboard", "dataset", "migration"]
OBJECT_TYPES: Final[tuple[ObjectType, ...]] = get_args(ObjectType)
#: What a deep link's objectId may be: a Superset id or slug (letters, digits, ``_.~-``);
#: anything else (markup, quotes, spaces, a path) gives the link no object at all.
OBJECT_ID_PATTERN: Final = r"^[A-Za-z0-9][A-Za-z0-9_.~-]{0,63}$"
Lang = Literal["en", "ru"]
LANGS: Final[tuple[Lang, ...]] = get_args(Lang)

# ---- roles ---------------------------------------------------------------------------
Role = Literal["admin", "analyst"]
ROLES: Final[tuple[Role, ...]] = get_args(Role)

# ---- confirmation card ---------------------------------------------------------------
CardState = Literal["read", "write_dev", "write_staging", "write_prod", "dangerous"]
CARD_STATES: Final[tuple[CardState, ...]] = get_args(CardState)

# ---- stream events -------------------------------------------------------------------
EventKind = Literal[
    "turn_start",
    "token",
    "tool_start",
    "tool_progress",
    "tool_end",
    "tool_retry",
    "tool_timeout",
    "confirm_required",
    "awaiting_approval",
    "permission_denied",
    "message",
    "error",
    "done",
    "stopped",
]
EVENT_KINDS: Final[tuple[EventKind, ...]] = get_args(EventKind)
ToolStatus = Literal["completed", "failed", "cancelled"]
DoneState = Literal["idle", "awaiting_confirmation", "error"]
#: why a stream ended, beside its state (``DoneEvent.reason``)
DONE_AWAITING_APPROVAL: Final = "awaiting_approval"

# ---- audit ---------------------------------------------------------------------------
AuditKind = Literal[
    "auth_failed",
    "login",
    "logout",
    "tool_filtered",
    "uicontext_ignored",
    "uicontext_invalid",
    "permission_denied",
    "not_available",
    "maintenance_refused",
    "confirm_requested",
    "confirmed",
    "cancelled",
    "confirmation_refused",
    "executed",
    "failed",
    "retried",
    "timeout",
    "task",
    "request_invalid",
    "turn_stopped",
    "conversation_changed",
    "undone",  # a later row on an undone change: who undid it, linked by the undo id
    # four-eyes: a request's story (app.agent.approvals, app.agent.core.approvals)
    "approval_requested",
    "approved",
    "denied",
    "approval_expired",
    "approval_withdrawn",
    "approval_refused",
    "approval_webhook_failed",
]
AUDIT_KINDS: Final[tuple[AuditKind, ...]] = get_args(AuditKind)
AuditDecision = Literal["allow", "deny", "confirm", "cancel", "ok", "error", "refused"]
Channel = Literal["page", "http", "mcp"]

# ---- the running app ----------------------------------------------------------------
#: where ``create_app`` leaves the running app's parts (``app.state.parts``; their ``core``
#: is the agent core the contract's handlers use when none is handed in)
PARTS_STATE: Final = "parts"
