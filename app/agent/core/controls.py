"""The operator's controls on the agent core (issue 11), mixed into ``AgentCore``:

* ``run_turn`` / ``resume`` (from :mod:`app.agent.core.runs`) — each runs under the
  conversation's :class:`RunControl` (one busy period at a time, stoppable),
  notes the turn in the conversation list and, once the run's graph has ended, whether a
  confirmation waits;
* :meth:`cancel` — stop a running turn (reads and the model call are cancelled, writes go
  on), or withdraw a pending confirmation; any door, the conversation's owner only;
* :meth:`follow` — the rest of a stopped turn's run (its writes' outcomes);
* :meth:`conversations` / :meth:`update_conversation` — the person's list, rename, archive;
* :meth:`args_schema` / :meth:`validate_args` — the edit form's fields and its messages
  (the tool's own args model).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from app.agent.core import edits, history
from app.agent.core.history import ConversationSummary
from app.agent.core.prepare import refuse_foreign, valid_conv_id
from app.agent.core.requests import DoorRequest, RequestRefused
from app.agent.core.runs import Runs
from app.agent.core.turns import run_config
from app.agent.rules import Rules
from app.agent.stream import Sequencer
from app.auth import Principal
from app.events import Event, ToolEndEvent, ToolProgressEvent, ToolTimeoutEvent
from app.store.conversations import ConversationChange, short_title
from app.vocab import Channel

FOLLOWED = (ToolEndEvent, ToolProgressEvent, ToolTimeoutEvent)


@dataclass(frozen=True)
class StopReport:
    """What a stop did: ``stopped`` a running turn (``writes_in_flight``: the writes that
    go on, ``{call_id, tool_name}``), or ``withdrew`` a pending confirmation."""

    conv_id: str
    stopped: bool = False
    withdrawn: str | None = None
    writes_in_flight: list[dict[str, str]] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class OperatorControls(Runs):
    """Mixed into ``AgentCore`` (which provides these); the runs themselves, ``run_turn``
    / ``resume``, come from :class:`~app.agent.core.runs.Runs`."""

    model_label: str
    rules: Rules

    # ---- stop -------------------------------------------------------------------------
    async def cancel(
        self, principal: Principal, conv_id: str, *, channel: Channel = "page"
    ) -> StopReport:
        """Stop ``conv_id``'s running turn, or withdraw its pending confirmation."""
        if not valid_conv_id(conv_id):
            raise RequestRefused(422, "invalid_conv_id", "not a conversation id")
        row = principal.audit_row(conv_id=conv_id, channel=channel)
        control = self.turns().active(conv_id)
        if control is not None and control.closing and not control.stopped:
            await asyncio.shield(control.finished)  # its turn just ended: nothing to stop
            control = None
        if control is not None and not control.stopped:
            await self._own(control.owner, principal, row)
            writes = control.stop()
            flights = [{"call_id": w.call_id, "tool_name": w.tool_name} for w in writes]
            await self.audit.record(
                kind="turn_stopped",
                decision="cancel",
                reason="stopped by the user",
                args={"writes_in_flight": flights} if flights else None,
                **row,
            )
            await self.audit.flush()
            return StopReport(conv_id, stopped=True, writes_in_flight=flights)
        graph = await self.graph()
        state = await graph.aget_state(run_config(conv_id))
        await self._own((state.values or {}).get("owner"), principal, row)
        if not state.interrupts:
            return StopReport(conv_id)
        req = DoorRequest(principal=principal, conv_id=conv_id, channel=channel)
        control = await self.turns().begin(conv_id, principal.user_id)
        try:
            state = await graph.aget_state(run_config(conv_id))  # a run may have ended it
            withdrawn = None
            if state.interrupts:
                withdrawn = await self._withdraw(graph, state, req, control)
        finally:
            self.turns().end(control, lambda: self._after(control, req))
        return StopReport(conv_id, withdrawn=withdrawn)

    async def _own(self, owner: str | None, principal: Principal, row: dict[str, Any]) -> None:
        if owner is None:
            raise RequestRefused(404, "not_found", "no such conversation")
        if owner != principal.user_id:
            raise await refuse_foreign(self.audit, **row)

    async def follow(self, principal: Principal, conv_id: str) -> AsyncIterator[Event]:
        """The tool events of a stopped turn's run that went on for its writes (their
        outcomes), until it ends; nothing when no such run is going on."""
        control = self.turns().active(conv_id)
        if control is None or control.owner != principal.user_id or not control.detached:
            return
        seq = Sequencer(conv_id)
        async for mode, data in control.follow():
            if mode == "custom" and isinstance(data, FOLLOWED):
                yield seq(data)

    # ---- the conversation list ----------------------------------------------------------
    async def conversations(
        self, principal: Principal, *, archived: bool = False
    ) -> list[ConversationSummary]:
        """The caller's own conversations, newest first (archived ones when asked)."""
        return await history.list_conversations(self.db, principal.user_id, archived=archived)

    async def update_conversation(
        self, principal: Principal, conv_id: str, change: ConversationChange
    ) -> ConversationSummary:
        """Rename and/or (un)archive the caller's conversation; 404 / 403 otherwise."""
        row = principal.audit_row(conv_id=conv_id)
        if change.title is not None and not short_title(change.title):
            raise RequestRefused(422, "invalid_title", "the title must have visible text")
        current = (
            await history.get_conversation(self.db, conv_id) if valid_conv_id(conv_id) else None
        )
        await self._own(current.owner if current else None, principal, row)
        updated = await history.update_conversation(self.db, conv_id, principal.user_id, change)
        if updated is None:  # gone meanwhile
            raise RequestRefused(404, "not_found", "no such conversation")
        await self.audit.record(
            kind="conversation_changed", decision="ok", args=change.given(), **row
        )
        return updated

    # ---- the edit form --------------------------------------------------------------------
    def args_schema(self, tool_name: str, lang: str = "en") -> dict[str, Any]:
        """The JSON schema of a tool's args model (the edit form's fields), in ``lang``."""
        return edits.args_schema(self.rules.policy(), tool_name, lang)

    def validate_args(
        self, tool_name: str, args: Mapping[str, Any], lang: str = "en"
    ) -> dict[str, str]:
        """The args model's own messages for ``args``, per field ({} when valid), in ``lang``."""
        return edits.args_messages(self.rules.policy(), tool_name, args, lang)
