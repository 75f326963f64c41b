"""The conversation read model (reloads, second tabs, ``GET /api/agent/conversations/…``),
read through LangGraph's public state API (``graph.aget_state``): messages, the tool
calls with their outcome, a pending confirmation and what the turn was asked under."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from app.agent.core.prepare import refuse_foreign, valid_conv_id
from app.agent.core.protocol import Core
from app.agent.core.requests import RequestRefused
from app.agent.core.turns import run_config
from app.agent.stream import confirm_required_event
from app.auth import Principal
from app.cpu import off_loop
from app.events import ConfirmRequiredEvent
from app.facts import read_refusal
from app.policy import Policy, tool_risk

TURN_KEYS = ("object_type", "selected_env", "uicontext")
RESULT_LIMIT = 4000
FAILED_PREFIX = "ERROR: "  # a tool's failure, as the tool node words it for the model


@dataclass(frozen=True)
class ConversationView:
    conv_id: str
    messages: list[dict[str, Any]]  # {"role": "user" | "assistant", "text", "position"}
    # {"call_id", "tool_name", "tool_args", "status", "result", "error", "is_write_tool",
    #  "position", "view"}: each call paired with its ToolMessage (status "pending": none yet)
    tool_calls: list[dict[str, Any]]
    pending: ConfirmRequiredEvent | None
    turn: dict[str, Any] = field(default_factory=dict)  # object_type, selected_env, uicontext
    owner: str | None = None

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
        }


def _status(result: ToolMessage | None) -> str:
    if result is None:
        return "pending"
    text = str(result.content)
    refusal = read_refusal(text)
    if refusal is not None:
        return "cancelled" if refusal.code == "cancelled" else "failed"
    return "failed" if text.startswith(FAILED_PREFIX) else "completed"


def _view(result: ToolMessage | None) -> Any:
    """The result's presentation the tool node kept with it (``app.views``)."""
    artifact = getattr(result, "artifact", None)
    return artifact.get("view") if isinstance(artifact, dict) else None


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
                    }
                )
            if m.content and not m.tool_calls:
                messages.append({"role": "assistant", "text": str(m.content), "position": position})
    pending = None
    if state.interrupts:
        pending = confirm_required_event(state.interrupts[0].value, conv_id)
    turn = {k: v for k, v in (values.get("turn") or {}).items() if k in TURN_KEYS}
    return ConversationView(
        conv_id=conv_id,
        messages=messages,
        tool_calls=tool_calls,
        pending=pending,
        turn=turn,
        owner=values.get("owner"),
    )


async def read_conversation(core: Core, principal: Principal, conv_id: str) -> ConversationView:
    """The conversation's view for ``principal`` (a door's read): 422 for a malformed
    id, 403 (audited) for another user's conversation."""
    if not valid_conv_id(conv_id):
        raise RequestRefused(422, "invalid_conv_id", "not a conversation id")
    graph = await core.graph()
    state = await graph.aget_state(run_config(conv_id))
    # off the loop: rating a SQL call parses its text (app.cpu, issue 23 item 6)
    view = await off_loop(conversation_view, conv_id, state, core.rules.policy())
    if view.owner and view.owner != principal.user_id:
        raise await refuse_foreign(core.audit, **principal.audit_row(conv_id=conv_id))
    return view
