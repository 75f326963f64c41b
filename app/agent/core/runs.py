"""How the core runs a turn or a resume (mixed into ``AgentCore`` through
``OperatorControls``): under the conversation's :class:`RunControl` (one busy period at a
time, stoppable; kept by the loop's :class:`TurnRegistry`), with the conversation list's
bookkeeping (``history``).

A turn's first event, ``turn_start``, is built from the checked request alone and sent
before anything waits: before the checkpoint and the database. The turn's
row in the conversation list is written meanwhile and committed before ``done`` (like
every audit row). After the run, whether a confirmation waits (the list's badge) is
known from the run's own ``done`` when the stream saw it to the end unstopped; otherwise
it is read from the checkpoint.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any

from app.agent.audit import AuditWriter
from app.agent.core import history
from app.agent.core.control import RunControl, TurnRegistry
from app.agent.core.requests import ResumeRequest, TurnRequest
from app.agent.core.supersede import WITHDRAWN, supersede
from app.agent.core.turns import last_human_text, run_config
from app.agent.stream import Sequencer
from app.events import DoneEvent, Event
from app.i18n import detect_lang
from app.store.db import Database

if TYPE_CHECKING:
    from app.agent.state import AgentContext

log = logging.getLogger("ss_tools.agent")
AWAITING = "awaiting_confirmation"


def _log_failure(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("noting the turn in the conversation list failed: %r", task.exception())


class Runs:
    """``run_turn`` / ``resume`` and the bookkeeping after a run (see the module)."""

    _registries: dict[int, tuple[weakref.ref[asyncio.AbstractEventLoop], TurnRegistry]]

    # AgentCore's (annotations only: nothing is defined here)
    db: Database
    audit: AuditWriter
    graph: Callable[[], Awaitable[Any]]
    context_for: Callable[..., AgentContext]
    _turn: Callable[[TurnRequest, RunControl], AsyncGenerator[Event, None]]
    _resume: Callable[[ResumeRequest, RunControl], AsyncGenerator[Event, None]]

    def turns(self) -> TurnRegistry:
        """This event loop's registry of running conversations."""
        loop = asyncio.get_running_loop()
        entry = self._registries.get(id(loop))
        if entry is None or entry[0]() is not loop:
            entry = (weakref.ref(loop), TurnRegistry())
            self._registries[id(loop)] = entry
        return entry[1]

    def run_turn(self, req: TurnRequest) -> AsyncIterator[Event]:
        """A person's message: ``turn_start`` at once, then the run's events and ``done``;
        the conversation list's row is written meanwhile (``_note_turn``, once the turn
        has read the checkpoint), committed before ``done``."""
        return self._controlled(req, self._turn)

    def resume(self, req: ResumeRequest) -> AsyncIterator[Event]:
        """Continue after ``prepare_resume`` consumed the confirmation."""
        return self._controlled(req, self._resume)

    async def _controlled(
        self, req: Any, run: Callable[[Any, RunControl], AsyncGenerator[Event, None]]
    ) -> AsyncIterator[Event]:
        """``run(req, control)``'s events under the conversation's run control; at its
        ``done``, a turn's list row is committed and the run's end state kept (``_after``)."""
        registry = self.turns()
        control = await registry.begin(req.conv_id, req.principal.user_id)
        events = run(req, control)
        try:
            async for ev in events:
                if isinstance(ev, DoneEvent):
                    if control.noted is not None:
                        await control.noted
                    control.done_state = ev.state
                yield ev
        finally:
            await events.aclose()
            registry.end(control, lambda: self._after(control, req))

    def _note_turn(self, req: TurnRequest, control: RunControl) -> None:
        """Start writing the turn's row in the conversation list, beside the run (the
        turn found the conversation new or the person's own in the checkpoint it read);
        ``run_turn`` waits for it before ``done``."""
        ui = req.uicontext
        noted = history.note_turn(
            self.audit,
            req.conv_id,
            req.principal.user_id,
            req.message,
            ui.objectType if ui is not None else None,
            req.env_id or (ui.envId if ui is not None else None),
        )
        noted.add_done_callback(_log_failure)
        control.noted = noted

    async def _after(self, control: RunControl, req: Any) -> None:
        """Once the run's graph has ended: a stopped run leaves no confirmation waiting
        (withdrawn, audited); the list's badge follows the checkpoint."""
        who = req.principal
        if control.done_state is not None and not (control.stopped or control.detached):
            # the stream saw the run to its end: its ``done`` says whether a confirmation
            # waits; a turn's row was written without one (it supersedes any) before done
            pending = control.done_state == AWAITING
            if pending or isinstance(req, ResumeRequest):
                await history.note_pending(self.db, control.conv_id, who.user_id, pending)
            await self.audit.flush()
            return
        graph = await self.graph()
        state = await graph.aget_state(run_config(control.conv_id))
        if (state.values or {}).get("owner") != who.user_id:
            return
        if control.stopped and state.interrupts:
            await self._withdraw(graph, state, req, control)
            state = await graph.aget_state(run_config(control.conv_id))
        await history.note_pending(self.db, control.conv_id, who.user_id, bool(state.interrupts))
        await self.audit.flush()

    async def _withdraw(self, graph: Any, state: Any, req: Any, control: RunControl) -> str | None:
        """Deny every pending confirmation of the conversation (the run answers "Stopped").
        ``req``: who asked, through which door (a turn, a resume or a stop)."""
        first = (state.interrupts[0].value or {}).get("confirmation_id")
        control.stopped = True  # the model is not asked again after the withdrawal
        lang = detect_lang(last_human_text((state.values or {}).get("messages") or []))
        events = supersede(
            self,  # type: ignore[arg-type]  # AgentCore, a Core
            graph,
            state,
            req.principal,
            control.conv_id,
            Sequencer(control.conv_id),
            lambda turn: self.context_for(req, turn, lang, control),
            reason=WITHDRAWN,
        )
        async for _ in events:  # nobody listens after a stop: run the withdrawal (its
            pass  # audit row and checkpoint update) to its end and drop its events
        return first
