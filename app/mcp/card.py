"""The confirmation card, as an MCP client shows it: one plain-text message.

Form-mode elicitation carries a message and a flat form; the card's facts (tool,
arguments, environment and tier, risk level, the preflight diff of a migration, whether
it can be undone) go in the message, and the form holds one optional field, the reason.
:class:`PendingCard` is what the door keeps of a pending confirmation between two asks
(also across the stateless rounds of MCP 2026-07-28, sealed in ``requestState``).
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.events import ConfirmRequiredEvent

MAX_MESSAGE_CHARS = 6000
MAX_DETAILS_CHARS = 3000
MAX_REASON_CHARS = 2000

__all__ = ["ConfirmForm", "PendingCard", "card_message"]


class ConfirmForm(BaseModel):
    # The elicitation form (no docstring: pydantic would show it to the person as the
    # form's description). Accept / decline / cancel are the client's own buttons.
    model_config = ConfigDict(extra="ignore", title="Confirmation")

    reason: str | None = Field(
        default=None,
        title="Reason (optional)",
        description="Recorded in the audit log with your decision.",
        max_length=MAX_REASON_CHARS,
    )


@dataclass(frozen=True)
class PendingCard:
    confirmation_id: str
    conv_id: str
    tool_name: str
    arguments: dict[str, Any]
    env_id: str | None
    tier: str | None
    risk_level: str
    dangerous: bool
    countdown_s: int
    expires_at: str
    message: str  # the card, as text

    @classmethod
    def from_event(cls, ev: ConfirmRequiredEvent) -> PendingCard:
        """The event's and its metadata's fields of the same names, the arguments, the
        tier and the card as text."""
        md = ev.metadata
        return cls(
            **ev.model_dump(include={"confirmation_id", "conv_id", "countdown_s", "expires_at"}),
            **md.model_dump(include={"tool_name", "env_id", "risk_level", "dangerous"}),
            arguments=dict(md.tool_args),
            tier=md.env_context,
            message=card_message(ev),
        )

    def to_state(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_state(cls, text: str) -> PendingCard:
        data = json.loads(text)
        return cls(**{k: data[k] for k in cls.__dataclass_fields__})

    def ask(self, note: str = "") -> str:
        """The elicitation message: an optional note (e.g. "too early") above the card."""
        return f"{note}\n\n{self.message}" if note else self.message


def _value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False, default=str)


def _details(details: dict[str, Any]) -> str:
    text = json.dumps(details, ensure_ascii=False, indent=2, default=str)
    if len(text) > MAX_DETAILS_CHARS:
        text = text[:MAX_DETAILS_CHARS].rsplit("\n", 1)[0] + "\n  … (open /agent for the full diff)"
    return text


def card_message(ev: ConfirmRequiredEvent) -> str:
    md = ev.metadata
    tier = md.env_context or "prod"
    env = md.env_id or "the selected environment"
    lines = [
        f"{'DANGEROUS — ' if md.dangerous else ''}Confirm {md.tool_name}?",
        *([md.description] if md.description else []),
        "",
        f"Environment: {env} (tier {tier}){' — PRODUCTION' if tier == 'prod' else ''}",
        f"Risk: {md.risk_level} ({md.risk})",
        *([f"Why: {md.risk_reason}"] if md.risk_reason else []),
    ]
    if md.tool_args:
        lines.append("Arguments:")
        lines += [f"  {k}: {_value(v)}" for k, v in md.tool_args.items()]
    if md.details:
        lines += ["Preflight (what it will change):", _details(md.details)]
    if md.undo == "undoable":
        lines.append(f"Can be undone for {md.undo_days} days (its result gives an undo_id).")
    elif md.undo == "final":
        lines.append("This cannot be undone.")
    if md.dangerous and ev.countdown_s:
        lines += ["", f"It can be accepted only {ev.countdown_s} s after this request was shown."]
    if md.second_person:
        accept = "Accept asks a second person to approve it; it runs once they do."
    else:
        accept = "Accept runs it once."
    lines += ["", f"{accept} Decline or Cancel does not run it."]
    text = "\n".join(lines)
    return text if len(text) <= MAX_MESSAGE_CHARS else text[: MAX_MESSAGE_CHARS - 1] + "…"
