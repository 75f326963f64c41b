"""What the core keeps per event loop (:class:`PerLoop`): the compiled graph (checkpointers
are loop-bound, so one graph a loop), the registry of running conversations, and on
PostgreSQL the replicas' share of run control (``replica_runs``). A dead loop's entry is
replaced when its id is reused.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import Any

from langchain_core.language_models import BaseChatModel
from langgraph.checkpoint.base import BaseCheckpointSaver

from app.agent.audit import AuditWriter
from app.agent.checkpoint import SaverPool
from app.agent.core.control import TurnRegistry
from app.agent.core.replica_runs import ReplicaRuns, shared_database
from app.agent.graph import build_graph
from app.store.db import Database
from app.store.run_signals import OnStop

Loop = weakref.ref[asyncio.AbstractEventLoop]


class PerLoop:
    """The graph, the running conversations and the replicas' share of each event loop.
    ``graph_options`` go to ``build_graph``; ``on_stop`` answers another replica's stop."""

    def __init__(
        self,
        model: BaseChatModel,
        saver: SaverPool | BaseCheckpointSaver,
        graph_options: dict[str, Any],
        db: Database,
        on_stop: OnStop,
    ) -> None:
        self.model = model
        self.saver = saver
        self.graph_options = graph_options
        self._db = db
        self._on_stop = on_stop
        self._graphs: dict[int, tuple[Loop, Any]] = {}
        self._registries: dict[int, tuple[Loop, TurnRegistry]] = {}
        # several replicas share a PostgreSQL database: runs are also locked and stopped
        # across them (ReplicaRuns); on SQLite, one process, there is no need
        self._shared = shared_database(db)
        self._replica_runs: dict[int, tuple[Loop, ReplicaRuns]] = {}

    async def graph(self) -> Any:
        """The compiled graph of the running event loop (built on first use)."""
        loop = asyncio.get_running_loop()
        entry = self._graphs.get(id(loop))
        if entry is None or entry[0]() is not loop:  # none yet, or a dead loop's id reused
            saver = self.saver
            if isinstance(saver, SaverPool):
                saver = await saver.get()
            graph = build_graph(model=self.model, checkpointer=saver, **self.graph_options)
            entry = (weakref.ref(loop), graph)
            self._graphs[id(loop)] = entry
        return entry[1]

    def turns(self) -> TurnRegistry:
        """This event loop's registry of running conversations."""
        loop = asyncio.get_running_loop()
        entry = self._registries.get(id(loop))
        if entry is None or entry[0]() is not loop:
            entry = (weakref.ref(loop), TurnRegistry())
            self._registries[id(loop)] = entry
        return entry[1]

    def replica_runs(self) -> ReplicaRuns | None:
        """This event loop's share of the replicas' run control (PostgreSQL), or None (one
        process on SQLite: the in-process registry is all there is)."""
        if not self._shared:
            return None
        loop = asyncio.get_running_loop()
        entry = self._replica_runs.get(id(loop))
        if entry is None or entry[0]() is not loop:
            entry = (weakref.ref(loop), ReplicaRuns(self._db, self._on_stop))
            self._replica_runs[id(loop)] = entry
        return entry[1]

    async def aclose(self, audit: AuditWriter) -> None:
        """Close the running loop's checkpointer, once the runs have ended (a graph still
        running gets a grace period, then is cancelled) and this loop's audit rows are
        committed; then its replicas' locks and listener."""
        await self.turns().shut_down()
        await audit.flush()
        shared = self._replica_runs.pop(id(asyncio.get_running_loop()), None)
        if shared is not None:
            await shared[1].aclose()
        self._graphs.pop(id(asyncio.get_running_loop()), None)
        if isinstance(self.saver, SaverPool):
            await self.saver.aclose()

    def stop(self) -> None:
        """Stop every checkpointer thread without a loop (a replaced core, session end)."""
        self._graphs.clear()
        if isinstance(self.saver, SaverPool):
            self.saver.stop()
