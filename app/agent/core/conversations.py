"""The conversations as the doors read them: one conversation's messages, tool calls and
pending card (reloads, second tabs, ``GET /api/agent/conversations/…``), read through
LangGraph's public state API (``graph.aget_state``); and a person's list, the
``conversation`` table (``app.store.conversations``) the core notes each turn in.

A list entry's title is the first request, shortened (renamable); ``object_type`` /
``env_id`` are the page context of the latest turn; ``pending_confirmation`` is set after
every run from the checkpoint (the drawer's badge). Archiving hides an entry and deletes
nothing. A conversation is one checkpoint thread of the graph (:func:`run_config`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from app.agent.approval_record import awaiting_event, is_approval
from app.agent.approvals import ApprovalBook
from app.agent.audit import AuditWriter
from app.agent.core.checks import refuse_foreign, valid_conv_id
from app.agent.core.collaborators import RunParts
from app.agent.core.requests import RequestRefused
from app.agent.state import confirm_required_event
from app.agent.undo import ARTIFACT_KEY, available_offers
from app.auth import Principal
from app.cpu import off_loop
from app.events import AwaitingApprovalEvent, ConfirmRequiredEvent
from app.facts import read_refusal
from app.policy import Policy, tool_risk
from app.store import conversations
from app.store.conversations import ConversationChange
from app.store.db import Database
from app.store.models import Conversation

TURN_KEYS = ("object_type", "selected_env", "uicontext")
RESULT_LIMIT = 4000
FAILED_PREFIX = "ERROR: "  # a tool's failure, as the tool node words it for the model
RECURSION_LIMIT = 30


def run_config(conv_id: str) -> dict[str, Any]:
    """The graph config of a conversation (one checkpoint thread per conversation)."""
    return {"configurable": {"thread_id": conv_id}, "recursion_limit": RECURSION_LIMIT}


@dataclass(frozen=True)
class ConversationView:
    conv_id: str
    messages: list[dict[str, Any]]  # {"role": "user" | "assistant", "text", "position"}
    # {"call_id", "tool_name", "tool_args", "status", "result", "error", "is_write_tool",
    #  "position", "view", "offers"}: each call paired with its ToolMessage (status
    #  "pending": none yet); "offers": its undo, while it is available
    tool_calls: list[dict[str, Any]]
    pending: ConfirmRequiredEvent | None
    turn: dict[str, Any] = field(default_factory=dict)  # object_type, selected_env, uicontext
    owner: str | None = None
    awaiting_approval: AwaitingApprovalEvent | None = None  # a call waits for a second person

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of the HTTP API (and of the page's restore)."""
        return {
            "conv_id": self.conv_id,
            "messages": self.messages,
            "tool_calls": self.tool_calls,
            "pending_confirmation": (
                self.pending.model_dump(mode="json") if self.pending is not None else None
            ),
            "turn": self.turn,
            "awaiting_approval": (
                self.awaiting_approval.model_dump(mode="json")
                if self.awaiting_approval is not None
                else None
            ),
        }


def _status(result: ToolMessage | None) -> str:
    if result is None:
        return "pending"
    text = str(result.content)
    refusal = read_refusal(text)
    if refusal is not None:
        return "cancelled" if refusal.code == "cancelled" else "failed"
    return "failed" if text.startswith(FAILED_PREFIX) else "completed"


def _view(result: ToolMessage | None, key: str = "view") -> Any:
    """The result's presentation the tool node kept with it (``app.views``), or another
    of its artifact's entries (``undo``: its undo offer, ``app.agent.undo``)."""
    artifact = getattr(result, "artifact", None)
    return artifact.get(key) if isinstance(artifact, dict) else None


def _writes(policy: Policy, tool_name: str, args: dict[str, Any]) -> bool:
    """Whether the call changes something (its card offers no retry)."""
    if policy.spec(tool_name) is None:
        return False
    return tool_risk(tool_name, args, policy=policy) != "read"


def conversation_view(conv_id: str, state: Any, policy: Policy) -> ConversationView:
    """The view of one ``StateSnapshot`` (``policy``: which calls are writes)."""
    values = state.values or {}
    history = values.get("messages") or []
    results = {m.tool_call_id: m for m in history if isinstance(m, ToolMessage)}
    messages: list[dict[str, Any]] = []
    tool_calls: list[dict[str, Any]] = []
    for position, m in enumerate(history):
        if isinstance(m, HumanMessage):
            messages.append({"role": "user", "text": str(m.content), "position": position})
        elif isinstance(m, AIMessage):
            for tc in m.tool_calls:
                result = results.get(tc["id"] or "")
                status = _status(result)
                text = str(result.content)[:RESULT_LIMIT] if result else ""
                tool_calls.append(
                    {
                        "call_id": tc["id"],
                        "tool_name": tc["name"],
                        "tool_args": tc["args"],
                        "status": status,
                        "result": text,
                        "error": text if status == "failed" else "",
                        "is_write_tool": _writes(policy, tc["name"], tc["args"]),
                        "position": position,
                        "view": _view(result),
                        "offers": _view(result, ARTIFACT_KEY) or [],
                    }
                )
            if m.content and not m.tool_calls:
                messages.append({"role": "assistant", "text": str(m.content), "position": position})
    pending = awaiting = None
    if state.interrupts:
        value = state.interrupts[0].value
        if is_approval(value):
            awaiting = awaiting_event(value, conv_id)
        else:
            pending = confirm_required_event(value, conv_id)
    turn = {k: v for k, v in (values.get("turn") or {}).items() if k in TURN_KEYS}
    return ConversationView(
        conv_id=conv_id,
        messages=messages,
        tool_calls=tool_calls,
        pending=pending,
        turn=turn,
        owner=values.get("owner"),
        awaiting_approval=awaiting,
    )


async def read_conversation(core: RunParts, principal: Principal, conv_id: str) -> ConversationView:
    """The conversation's view for ``principal`` (a door's read): 422 for a malformed
    id, 403 (audited) for another user's conversation."""
    if not valid_conv_id(conv_id):
        raise RequestRefused(422, "invalid_conv_id", "not a conversation id")
    graph = await core.graph()
    state = await graph.aget_state(run_config(conv_id))
    # off the loop: rating a SQL call parses its text (app.cpu: a long text must not hold the loop)
    view = await off_loop(conversation_view, conv_id, state, core.rules.policy())
    if view.owner and view.owner != principal.user_id:
        raise await refuse_foreign(core.audit, **principal.audit_row(conv_id=conv_id))
    await available_offers(core.db, view.tool_calls)  # "Undo" while it can still be taken
    if view.awaiting_approval is not None:  # its request's status now (it may have expired)
        book = ApprovalBook(core.db, core.audit, core.settings)
        await book.expire_due()
        record = await book.load(view.awaiting_approval.approval_id)
        view.awaiting_approval.status = record.status if record is not None else "unknown"
    return view


# ---- a person's list ---------------------------------------------------------------------
@dataclass(frozen=True)
class ConversationSummary:
    """One entry of a person's conversation list."""

    conv_id: str
    title: str
    updated_at: datetime
    env_id: str | None
    object_type: str | None
    pending_confirmation: bool
    archived: bool = False
    owner: str = ""

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape of ``GET /api/agent/conversations``."""
        return {
            "conv_id": self.conv_id,
            "title": self.title,
            "updated_at": self.updated_at.isoformat(),
            "env_id": self.env_id,
            "object_type": self.object_type,
            "pending_confirmation": self.pending_confirmation,
            "archived": self.archived,
        }


def _summary(row: Conversation) -> ConversationSummary:
    """The list's entry of a conversation row: the row's fields of the same names."""
    names = [f.name for f in dataclasses.fields(ConversationSummary)]
    return ConversationSummary(**{name: getattr(row, name) for name in names})


def _note_pending(db: Database, **fields: Any) -> None:
    with db.session() as s:
        conversations.note_pending(s, **fields)


def _list(db: Database, owner: str, archived: bool) -> list[ConversationSummary]:
    with db.session() as s:
        return [_summary(r) for r in conversations.list_for(s, owner=owner, archived=archived)]


def _get(db: Database, conv_id: str) -> ConversationSummary | None:
    with db.session() as s:
        row = conversations.get(s, conv_id=conv_id)
        return None if row is None else _summary(row)


def _update(db: Database, **fields: Any) -> ConversationSummary | None:
    with db.session() as s:
        row = conversations.update(s, **fields)
        return None if row is None else _summary(row)


def note_turn(
    audit: AuditWriter,
    conv_id: str,
    owner: str,
    message: str,
    object_type: str | None,
    env_id: str | None,
) -> asyncio.Future[None]:
    """Write the turn's row in the list in the audit writer's next transaction (with the
    turn's first audit rows: one commit, no thread of its own); ends once committed."""
    return audit.also(
        functools.partial(
            conversations.note_turn,
            conv_id=conv_id,
            owner=owner,
            message=message,
            object_type=object_type,
            env_id=env_id,
        )
    )


async def note_pending(db: Database, conv_id: str, owner: str, pending: bool) -> None:
    await asyncio.to_thread(_note_pending, db, conv_id=conv_id, owner=owner, pending=pending)


async def list_conversations(
    db: Database, owner: str, *, archived: bool = False
) -> list[ConversationSummary]:
    return await asyncio.to_thread(_list, db, owner, archived)


async def get_conversation(db: Database, conv_id: str) -> ConversationSummary | None:
    return await asyncio.to_thread(_get, db, conv_id)


async def update_conversation(
    db: Database, conv_id: str, owner: str, change: ConversationChange
) -> ConversationSummary | None:
    return await asyncio.to_thread(_update, db, conv_id=conv_id, owner=owner, change=change)
