"""What the core's own modules need of the agent core, as a structural type.

``prepare_*`` (the doors' one input check) and the runs' helpers (``calls``,
``supersede`` ...) take the core as a :class:`Core`: the parts it holds (handed in by the
composition root, ``app.parts``) and the few things it does. :class:`AgentCore` is one;
typing against this protocol keeps those modules from importing ``agent.py`` (which
imports them).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from app.agent.audit import AuditWriter
from app.agent.confirmation import Confirmations
from app.agent.rules import Rules
from app.auth.gate import AuthGate
from app.settings import Settings
from app.store.db import Database
from app.vocab import EnvTier

if TYPE_CHECKING:
    from app.agent.core.control import RunControl
    from app.agent.state import AgentContext


@dataclass(frozen=True)
class EnvView:
    """A configured environment as the doors show it; ``tier`` is already resolved."""

    id: str
    name: str
    tier: EnvTier
    url: str
    error: str | None = None


class Core(Protocol):
    """The agent core as its modules see it."""

    settings: Settings
    db: Database
    auth: AuthGate
    audit: AuditWriter
    rules: Rules
    confirmations: Confirmations
    model_label: str

    async def graph(self) -> Any:
        """The compiled graph of the running event loop."""
        ...

    def environments(self) -> list[EnvView]:
        """The configured environments, each with its resolved tier."""
        ...

    def context_for(
        self, req: Any, turn: Mapping[str, Any], lang: str, control: RunControl | None = None
    ) -> AgentContext:
        """The runtime context of a run for ``req`` (who, which conversation, which door)."""
        ...
