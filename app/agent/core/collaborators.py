"""What the modules below ``AgentCore`` work with, named here as small protocols so that
none of them imports ``agent.py``: the core reads top to bottom. ``AgentCore`` (at the
top) holds these parts and hands itself in; a test may hand in anything that has them.

* :class:`RunParts`: what a run works with (``runs``, ``bookkeeping``, ``runner``,
  ``conversations``): the settings, the database, the environment registry, the rules
  (policy and tools), the audit writer, the confirmations, the model's label, the graph
  of the running event loop and the per-run context;
* :class:`CheckParts`: what checking a door's input needs besides (``checks``): the auth
  gate and the per-user limits;
* :class:`StopParts`: what a Stop needs besides (``stopping``): this loop's running
  conversations, the replicas' share, and the core's claim and ownership checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from app.agent.audit import AuditWriter
from app.agent.confirmation import Confirmations
from app.agent.core.control import RunControl, TurnRegistry
from app.agent.core.limits import UserLimits
from app.agent.core.replica_runs import ReplicaRuns
from app.agent.core.requests import DoorRequest
from app.agent.rules import Rules
from app.agent.state import AgentContext
from app.auth import AuthGate, Principal
from app.settings import Settings
from app.store.db import Database
from app.superset.registry import EnvironmentRegistry


class RunParts(Protocol):
    """What a run works with (see the module)."""

    settings: Settings
    db: Database
    registry: EnvironmentRegistry
    rules: Rules
    audit: AuditWriter
    confirmations: Confirmations
    model_label: str

    async def graph(self) -> Any:
        """The compiled graph of the running event loop."""
        ...

    def context_for(
        self, req: Any, turn: Mapping[str, Any], lang: str, control: RunControl | None = None
    ) -> AgentContext:
        """The runtime context of a run for ``req`` under a checkpointed ``turn``."""
        ...


class CheckParts(RunParts, Protocol):
    """What checking a door's input works with, besides a run's parts."""

    auth: AuthGate
    limits: UserLimits


class StopParts(RunParts, Protocol):
    """What a Stop works with, besides a run's parts."""

    def turns(self) -> TurnRegistry:
        """This event loop's registry of running conversations."""
        ...

    def replica_runs(self) -> ReplicaRuns | None:
        """This loop's share of the replicas' run control, or None (one process)."""
        ...

    async def claim(self, control: RunControl, req: DoorRequest, wait_s: float) -> None:
        """Take the conversation across replicas too (refused when another runs it)."""
        ...

    async def own(self, owner: str | None, principal: Principal, row: dict[str, Any]) -> None:
        """Refuse ``principal`` unless it owns the conversation."""
        ...
