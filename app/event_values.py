"""The values the events carry beside their own fields: a way on the core offers the
person (:class:`Offer`, with the call it makes: :class:`OfferedCall`), and what a person
must see before a guarded or dangerous call runs (:class:`ConfirmMetadataV2`, the card).
Importable from :mod:`app.events` too, with the events that carry them."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.facts import Alternative
from app.vocab import CardState, EnvTier, Risk, RiskLevel, Undo


class OfferedCall(BaseModel):
    """A tool call a door can make with one click, through the same guard as any call."""

    model_config = ConfigDict(extra="forbid")
    tool_name: str
    args: dict[str, Any] = Field(default_factory=dict)


class Offer(BaseModel):
    """A way on the core offers the person (typed: the page shows a button, an HTTP
    client decides for itself):

    * ``without_context`` — the page's context left the call out: ``call`` is the call
      with the object spelled out, made after leaving the context (``clear_context``);
    * ``choice`` — a name matched several objects: ``request`` picks one;
    * ``check_status`` — a write timed out: ``call`` asks for its task by id;
    * ``undo`` — a write that can be undone: ``call`` is the undo tool's call that undoes
      it, available until ``expires_at`` (ISO time, UTC).
    * ``suggestion`` — the turn ended on the model's mistakes: ``call`` shows what the
      person can ask (the capabilities tool), beside "ask in other words".
    * ``link_account`` — the person has no working link to their Superset account on
      ``env_id``: a door opens its "Connect your Superset account" form (the page) or
      points at ``POST /api/superset/accounts`` (HTTP, MCP); the password never goes
      through the conversation.

    ``label`` is what the button says and ``request`` what the person would say, both in
    the turn's language; with a ``call`` a door makes the call, else it sends
    ``request`` as the person's message."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["without_context", "choice", "check_status", "undo", "link_account", "suggestion"]
    label: str
    request: str
    call: OfferedCall | None = None
    clear_context: bool = False
    expires_at: str | None = None
    env_id: str | None = None  # link_account: the environment to link


class ConfirmMetadataV2(BaseModel):
    """What a person must see before a guarded or dangerous call runs."""

    tool_name: str
    tool_args: dict[str, Any] = Field(default_factory=dict)
    risk: Risk
    risk_level: RiskLevel
    dangerous: bool
    env_id: str | None = None
    env_context: EnvTier | None = None
    permission_granted: bool = True
    required_role: str | None = None
    alternatives: list[Alternative] = Field(default_factory=list)
    card_state: CardState = "read"
    details: dict[str, Any] | None = None  # e.g. a migration's preflight diff
    risk_reason: str | None = None  # why it is rated so, in the card's language
    description: str = ""
    countdown_s: int = 0  # the policy's wait before a dangerous card can be confirmed
    # whether what the call changes can be undone (for ``undo_days`` days) or not; None
    # for a read (``app.policy.undo``)
    undo: Undo | None = None
    undo_days: int = 0
    # after this person confirms, a second person must approve it too (four-eyes)
    second_person: bool = False
