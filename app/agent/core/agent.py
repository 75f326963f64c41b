"""``AgentCore``: the one agent the doors share, in one class.

It holds the app's parts it works with (handed in by the composition root,
``app.parts.build_parts``: settings, database, registry, rules, audit writer, auth gate,
task runner), owns the chat model, the checkpointer pool and the compiled graph (one per
event loop: checkpointers are loop-bound), takes a checked request (``checks``:
``prepare_turn`` / ``prepare_call`` / ``prepare_resume``) and yields typed events::

    parts = build_parts(settings)                           # create_app() builds them once
    async for event in parts.core.run_turn(turn_request):   # turn_start ... done
        ...

Every run goes under its conversation's :class:`RunControl` (one busy period at a time,
stoppable from any door: :meth:`cancel`); what it does is :mod:`runs` read top to bottom.
The modules below this one take what they work with as ``collaborators.RunParts`` (this
class has those parts) and never import it.
Tests build their own parts and a core with a scripted model on them
(``app.parts.with_core(parts, model=scripted, tools={...}, checkpointer=InMemorySaver())``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.checkpoint.base import BaseCheckpointSaver

from app.agent.audit import AuditWriter
from app.agent.checkpoint import SaverPool
from app.agent.confirmation import Confirmations
from app.agent.core import conversations, edits, runs, stopping
from app.agent.core.checks import refuse_foreign, valid_conv_id
from app.agent.core.control import RunControl, TurnRegistry, stop_local
from app.agent.core.controlled import Run, claim, controlled
from app.agent.core.conversations import ConversationSummary, ConversationView
from app.agent.core.env_views import EnvView, env_views
from app.agent.core.limits import UserLimits
from app.agent.core.loops import PerLoop
from app.agent.core.replica_runs import ReplicaRuns
from app.agent.core.requests import (
    CallRequest,
    DoorRequest,
    RequestRefused,
    ResumeRequest,
    TurnRequest,
)
from app.agent.core.stopping import StopReport
from app.agent.core.turn_plan import build_context, tool_listing
from app.agent.nodes.tool_deps import tool_deps_factory
from app.agent.rules import Rules
from app.agent.state import AgentContext, Sequencer
from app.auth import AuthGate, Principal
from app.events import Event, ToolEndEvent, ToolProgressEvent, ToolTimeoutEvent
from app.policy import PipelineResult
from app.policy.risk import EnvTable, tier
from app.settings import Settings
from app.store.conversations import ConversationChange, short_title
from app.store.db import Database
from app.superset.registry import EnvironmentRegistry
from app.tasks.worker import TaskRunner
from app.vocab import Channel, EnvTier

#: The events of a stopped turn's run that went on for its writes (``follow``).
FOLLOWED = (ToolEndEvent, ToolProgressEvent, ToolTimeoutEvent)


class AgentCore:
    """Runs (:meth:`run_turn`, :meth:`run_call`, :meth:`resume`), stops them
    (:meth:`cancel`, :meth:`follow`), and reads conversations for the doors."""

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
        """The app's parts (see the module docstring). ``label``: who answers, as the page
        says it (the composition root names the model). ``checkpointer``: a pool (default:
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
        self.limits = UserLimits(settings, db)  # per-user pace and running runs (checks)
        self.model_label = label or type(model).__name__
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
                settings=settings, registry=registry, db=db, tasks=tasks, tools=rules.tools
            ),
            "registry": registry,  # the guard checks which Superset account a call acts as
        }
        self._graph_options.update(graph_options)
        saver = checkpointer if checkpointer is not None else SaverPool(settings)
        self.loops = PerLoop(model, saver, self._graph_options, db, self._stop_for_replica)

    # ---- what it works with, per event loop (``loops.PerLoop``) ------------------------------
    async def graph(self) -> Any:
        """The compiled graph of the running event loop (built on first use)."""
        return await self.loops.graph()

    def turns(self) -> TurnRegistry:
        """This event loop's registry of running conversations."""
        return self.loops.turns()

    def replica_runs(self) -> ReplicaRuns | None:
        """This event loop's share of the replicas' run control (PostgreSQL), or None."""
        return self.loops.replica_runs()

    async def _stop_for_replica(self, conv_id: str) -> list[dict[str, str]] | None:
        """Another replica's ``/cancel`` of a run of ours (the asker audits it)."""
        return await stop_local(self.turns().active(conv_id))

    async def aclose(self) -> None:
        """Close the running loop's checkpointer (app shutdown, test teardown), once the
        runs have ended and this loop's audit rows are committed (``PerLoop.aclose``)."""
        await self.loops.aclose(self.audit)

    def stop(self) -> None:
        """Stop every checkpointer thread without a loop (a replaced core, session end)."""
        self.loops.stop()

    # ---- the environments -----------------------------------------------------------------
    def env_table(self) -> EnvTable:
        return self.rules.envs()

    def environments(self) -> list[EnvView]:
        """The configured environments, each with its tier as policy resolves it."""
        return env_views(self.registry, self.env_table())

    def tier(self, env_id: str) -> EnvTier:
        """An environment's tier as policy resolves it (one nobody can place is prod)."""
        return tier(env_id, self.env_table())

    def default_env(self) -> str | None:
        """The environment a request that names none acts on (policy's one rule)."""
        return self.env_table().default

    def context_for(
        self, req: Any, turn: Mapping[str, Any], lang: str, control: RunControl | None = None
    ) -> AgentContext:
        """The runtime context of a run for ``req`` (who, which conversation, which door)."""
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

    # ---- runs ------------------------------------------------------------------------------
    def run_turn(self, req: TurnRequest) -> AsyncIterator[Event]:
        """A person's message: ``turn_start`` at once, then the run's events and ``done``."""
        return self._controlled(req, runs.turn)

    def run_call(self, req: CallRequest) -> AsyncIterator[Event]:
        """A door's direct call of one tool, through the same guard (no model)."""
        return self._controlled(req, runs.call)

    def resume(self, req: ResumeRequest) -> AsyncIterator[Event]:
        """Continue after ``prepare_resume`` consumed the confirmation."""
        return self._controlled(req, runs.resume)

    def _controlled(self, req: Any, run: Run) -> AsyncIterator[Event]:
        """``run``'s events under the conversation's run control (``controlled``)."""
        return controlled(self, req, run)

    async def claim(self, control: RunControl, req: DoorRequest, wait_s: float) -> None:
        """Take the conversation across replicas too (refused when another runs it)."""
        await claim(self, control, req, wait_s)

    # ---- stop -----------------------------------------------------------------------------
    async def cancel(
        self, principal: Principal, conv_id: str, *, channel: Channel = "page"
    ) -> StopReport:
        """Stop ``conv_id``'s running turn (reads and the model call are cancelled, writes
        go on) wherever it runs, or withdraw its pending confirmation; any door, the owner
        only. The report says whether the stop was confirmed or accepted (``stopping``)."""
        return await stopping.cancel(self, principal, conv_id, channel=channel)

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

    async def own(self, owner: str | None, principal: Principal, row: dict[str, Any]) -> None:
        """Refuse ``principal`` unless it owns the conversation (404 none, 403 another's)."""
        if owner is None:
            raise RequestRefused(404, "not_found", "no such conversation")
        if owner != principal.user_id:
            raise await refuse_foreign(self.audit, **row)

    # ---- conversations -----------------------------------------------------------------------
    async def conversation(self, principal: Principal, conv_id: str) -> ConversationView:
        """Messages, tool calls and a pending confirmation; 403 for another user's."""
        return await conversations.read_conversation(self, principal, conv_id)

    async def conversations(
        self, principal: Principal, *, archived: bool = False
    ) -> list[ConversationSummary]:
        """The caller's own conversations, newest first (archived ones when asked)."""
        return await conversations.list_conversations(self.db, principal.user_id, archived=archived)

    async def update_conversation(
        self, principal: Principal, conv_id: str, change: ConversationChange
    ) -> ConversationSummary:
        """Rename and/or (un)archive the caller's conversation; 404 / 403 otherwise."""
        row = principal.audit_row(conv_id=conv_id)
        if change.title is not None and not short_title(change.title):
            raise RequestRefused(422, "invalid_title", "the title must have visible text")
        current = (
            await conversations.get_conversation(self.db, conv_id)
            if valid_conv_id(conv_id)
            else None
        )
        await self.own(current.owner if current else None, principal, row)
        updated = await conversations.update_conversation(
            self.db, conv_id, principal.user_id, change
        )
        if updated is None:  # gone meanwhile
            raise RequestRefused(404, "not_found", "no such conversation")
        await self.audit.record(
            kind="conversation_changed", decision="ok", args=change.given(), **row
        )
        return updated

    # ---- what a door shows: the tool list, the edit form ----------------------------------
    def tool_listing(self, role: str | None, object_type: str | None) -> PipelineResult[Any]:
        """The tools ``role`` is offered on a page of ``object_type``, and the others' reasons."""
        return tool_listing(self.rules.policy(), role, object_type)

    def args_schema(self, tool_name: str, lang: str = "en") -> dict[str, Any]:
        """The JSON schema of a tool's args model (the edit form's fields), in ``lang``."""
        return edits.args_schema(self.rules.policy(), tool_name, lang)

    def validate_args(
        self, tool_name: str, args: Mapping[str, Any], lang: str = "en"
    ) -> dict[str, str]:
        """The args model's own messages for ``args``, per field ({} when valid), in ``lang``."""
        return edits.args_messages(self.rules.policy(), tool_name, args, lang)
