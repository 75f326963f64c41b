"""``AgentCore``: the one agent the doors share. It holds the app's parts it works with
(handed in by the composition root, ``app.parts.build_parts``: settings, database,
registry, rules, audit writer, auth gate, task runner), owns the chat model, the
checkpointer pool and the compiled graph (one per event loop: checkpointers are
loop-bound), takes a checked request (``prepare_turn`` / ``prepare_resume``) and yields
typed events.

    parts = build_parts(settings)                     # create_app() builds them once
    async for event in parts.core.run_turn(turn_request):   # TurnStartEvent, ... DoneEvent
        ...

Tests build their own parts, and a core with a scripted model on them
(``app.parts.with_core(parts, model=scripted, tools={...}, checkpointer=InMemorySaver())``).
"""

from __future__ import annotations

import asyncio
import functools
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver

from app.agent.audit import AuditWriter
from app.agent.checkpoint import SaverPool
from app.agent.confirmation import Confirmations
from app.agent.core.calls import CallRequest, run_call
from app.agent.core.control import RunControl
from app.agent.core.controls import OperatorControls
from app.agent.core.conversations import ConversationView, read_conversation
from app.agent.core.offer import tool_listing
from app.agent.core.opening import audit_offer, plan_request, run_opened
from app.agent.core.protocol import EnvView
from app.agent.core.requests import ResumeRequest, TurnRequest, request_row
from app.agent.core.resuming import run_resume
from app.agent.core.turns import build_context, history_messages
from app.agent.graph import build_graph, tool_deps_factory
from app.agent.rules import Rules
from app.agent.state import AgentContext
from app.agent.stream import Sequencer
from app.auth import AuthGate, Principal
from app.events import Event, TurnStartEvent
from app.policy import PipelineResult
from app.policy.envs import EnvTable, tier_of
from app.settings import Settings
from app.store.db import Database
from app.superset.registry import EnvironmentRegistry
from app.tasks.worker import TaskRunner


class AgentCore(OperatorControls):
    """``run_turn`` / ``resume`` / ``cancel`` / ``follow`` and the conversation list come
    from :class:`~app.agent.core.controls.OperatorControls` (issue 11); the runs
    themselves are ``_turn`` / ``_resume`` below."""

    def __init__(
        self,
        *,
        model: BaseChatModel,
        settings: Settings,
        db: Database,
        registry: EnvironmentRegistry,
        rules: Rules,
        audit: AuditWriter,
        auth: AuthGate,
        tasks: TaskRunner,
        checkpointer: SaverPool | BaseCheckpointSaver | None = None,
        tools: Mapping[str, Any] | None = None,
        label: str | None = None,
        **graph_options: Any,
    ) -> None:
        """The app's parts (see the module docstring). ``checkpointer``: a pool (default:
        SQLite in the data dir, or PostgreSQL) or one saver used on every loop (e.g.
        ``InMemorySaver``). ``tools`` and ``graph_options`` (preflight, deps_factory,
        system_prompt, policy, envs; the declarations are ``rules.tools``) go to
        ``build_graph``."""
        self.model = model
        self.settings = settings
        self.db = db
        self.registry = registry
        self.rules = rules
        self.audit = audit
        self.auth = auth
        self.tasks = tasks
        self.confirmations = Confirmations(db, audit, ttl_s=settings.confirmation_ttl_s)
        self.model_label = label or type(model).__name__  # the composition root names it
        self._saver = checkpointer if checkpointer is not None else SaverPool(settings)
        given = dict(tools) if tools is not None else None  # {}: no tool has an implementation
        self._graph_options: dict[str, Any] = {
            "tools": given,
            "settings": settings,
            "db": db,
            "audit": audit,
            "confirmations": self.confirmations,
            "policy": rules.policy,
            "envs": rules.envs,
            "decls": rules.tools,
            "deps_factory": tool_deps_factory(
                settings=settings, registry=registry, db=db, tasks=tasks
            ),
        }
        self._graph_options.update(graph_options)
        self._graphs: dict[int, tuple[weakref.ref[asyncio.AbstractEventLoop], Any]] = {}
        self._registries = {}  # event loop -> TurnRegistry (OperatorControls.turns)

    # ---- parts ------------------------------------------------------------------------
    async def graph(self) -> Any:
        """The compiled graph of the running event loop (built on first use)."""
        loop = asyncio.get_running_loop()
        entry = self._graphs.get(id(loop))
        if entry is None or entry[0]() is not loop:  # none yet, or a dead loop's id reused
            saver = self._saver
            if isinstance(saver, SaverPool):
                saver = await saver.get()
            graph = build_graph(model=self.model, checkpointer=saver, **self._graph_options)
            entry = (weakref.ref(loop), graph)
            self._graphs[id(loop)] = entry
        return entry[1]

    async def aclose(self) -> None:
        """Close the running loop's checkpointer (app shutdown, test teardown), once the
        runs have ended (a graph still running is given a grace period, then cancelled)
        and this loop's audit rows still held are committed."""
        await self.turns().shut_down()
        await self.audit.flush()
        self._graphs.pop(id(asyncio.get_running_loop()), None)
        if isinstance(self._saver, SaverPool):
            await self._saver.aclose()

    def stop(self) -> None:
        """Stop every checkpointer thread without a loop (a replaced core, session end)."""
        self._graphs.clear()
        if isinstance(self._saver, SaverPool):
            self._saver.stop()

    def env_table(self) -> EnvTable:
        return self.rules.envs()

    def environments(self) -> list[EnvView]:
        """The configured environments, each with its resolved tier (never derived here)."""
        table = self.env_table()
        return [
            EnvView(
                id=row["id"],
                name=row["name"],
                tier=tier_of(row["id"], table) or "prod",
                url=row["url"],
                error=row.get("error"),
            )
            for row in self.registry.describe()
        ]

    def context_for(
        self, req: Any, turn: Mapping[str, Any], lang: str, control: RunControl | None = None
    ) -> AgentContext:
        tiers = {env.id: env.tier for env in self.environments()}
        ctx = build_context(
            req.principal,
            req.conv_id,
            turn,
            lang,
            environments=tiers,
            channel=req.channel,
            client=req.client,
        )
        ctx.control = control
        return ctx

    # ---- a turn -------------------------------------------------------------------------
    async def _turn(self, req: TurnRequest, control: RunControl) -> AsyncGenerator[Event, None]:
        """A person's message: ``turn_start``, then the run's events, then ``done``."""
        seq = Sequencer(req.conv_id)
        row = request_row(req)
        turn = plan_request(self.rules.policy(), req, req.env_id)
        yield seq(
            TurnStartEvent(
                model=self.model_label,
                tools_offered=len(turn["allowed_tools"]),
                object_type=turn["object_type"],
                env_id=turn["selected_env"],
                lang=req.lang,
            )
        )
        await audit_offer(self.audit, turn, row)

        def messages(values: Mapping[str, Any]) -> list[Any]:
            """The message; a new conversation is seeded with the page's history."""
            new = not values.get("messages")
            seeded = history_messages(req.history) if new and req.history else []
            return [*seeded, HumanMessage(content=req.message)]

        def owned() -> None:  # new or the person's own: its row in the list
            self._note_turn(req, control)

        async for ev in run_opened(self, req, turn, messages, seq, control, owned=owned):
            yield ev

    # ---- a door's direct tool call (no model; ends after the tools) ----------------------
    async def run_call(self, req: CallRequest) -> AsyncIterator[Event]:
        """One tool call from ``prepare_call``, through the same guard (see ``calls``),
        under the conversation's run control like a turn (stoppable, one at a time)."""
        control = await self.turns().begin(req.conv_id, req.principal.user_id)
        try:
            async for ev in run_call(self, req, control):
                yield ev
        finally:
            self.turns().end(control, lambda: self._after(control, req))

    # ---- a confirmation's answer ----------------------------------------------------------
    async def _resume(self, req: ResumeRequest, control: RunControl) -> AsyncGenerator[Event, None]:
        """Continue after ``prepare_resume`` consumed the confirmation (``resuming``)."""
        context = functools.partial(self.context_for, req, control=control)
        async for ev in run_resume(self, req, context):
            yield ev

    def tool_listing(self, role: str | None, object_type: str | None) -> PipelineResult[Any]:
        """The tools ``role`` is offered on a page of ``object_type``, and the others' reasons."""
        return tool_listing(self.rules.policy(), role, object_type)

    # ---- reading a conversation -------------------------------------------------------
    async def conversation(self, principal: Principal, conv_id: str) -> ConversationView:
        """Messages, tool calls and a pending confirmation; 403 for another user's."""
        return await read_conversation(self, principal, conv_id)
