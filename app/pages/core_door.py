"""What the /agent page needs from ``app.agent.core``: :class:`CoreDoor`, the core and its
three ``prepare_*`` with the core bound. The page controller and its mixins
(``agent_controller``, ``agent_ways``) are written against it; ``app.pages.agent.core_door``
builds it from the real core, and tests hand in a fake core with the same methods
(``tests/ui/fakes.py``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.agent.core import AgentCore, CallRequest, ResumeRequest, TurnRequest


@dataclass(frozen=True)
class CoreDoor:
    """The core and its three ``prepare_*`` with the core bound
    (``functools.partial(prepare_turn, core=core)``)."""

    core: AgentCore
    prepare_turn: Callable[..., Awaitable[TurnRequest]]
    prepare_resume: Callable[..., Awaitable[ResumeRequest]]
    prepare_call: Callable[..., Awaitable[CallRequest]]
