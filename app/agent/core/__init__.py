"""The agent core: one agent, typed events, thin doors.

Every door (the page, the HTTP stream API, MCP) checks its input once (``checks``:
``prepare_turn`` / ``prepare_call`` / ``prepare_resume``) and hands the checked request to
:class:`AgentCore`, which yields typed events (``app.events``) with ``conv_id`` and ``seq``
set. Modules, read top to bottom: ``agent`` (AgentCore, which composes the rest),
``stopping`` (a person's Stop and its answer), ``runs`` (what a run does),
``bookkeeping`` (around a run: the list's row and badge, a withdrawn confirmation),
``runner`` (the graph's output as events), ``conversations`` (the read model and the
list), ``checks`` (every input checked once), ``collaborators`` (what the modules below
``agent`` work with: ``AgentCore`` has those parts, none of them imports it),
``turn_plan`` (a run's tool set and context, a door's tool list), ``controlled`` (a run
under its conversation's control), ``control`` (one run at a time, stop, in one process),
``replica_runs`` (the same across replicas), ``loops`` (what the core keeps per event
loop), ``env_views`` (the environments as doors show them), ``limits`` (per-user pace and
running runs), ``edits`` (the edit form), ``requests`` (what a door hands in, a
refusal). ``approvals`` and ``approval_queue`` (a call that waits for a second person)
sit above ``agent``: they use the composed core.
"""

from app.agent.core.agent import AgentCore, StopReport
from app.agent.core.check_call import prepare_call
from app.agent.core.check_resume import prepare_resume
from app.agent.core.checks import authenticate, prepare_turn
from app.agent.core.conversations import ConversationSummary, ConversationView
from app.agent.core.env_views import EnvView
from app.agent.core.requests import (
    CONFIRMATION_STATUS,
    Caller,
    CallRequest,
    ConfirmationRefused,
    DoorRequest,
    HistoryItem,
    RequestRefused,
    ResumeInput,
    ResumeRequest,
    TurnInput,
    TurnRequest,
    confirmation_status,
)
from app.agent.core.turn_plan import OfferedTool, offered_tools

__all__ = [
    "CONFIRMATION_STATUS",
    "AgentCore",
    "CallRequest",
    "Caller",
    "ConfirmationRefused",
    "ConversationSummary",
    "ConversationView",
    "DoorRequest",
    "EnvView",
    "HistoryItem",
    "OfferedTool",
    "RequestRefused",
    "ResumeInput",
    "ResumeRequest",
    "StopReport",
    "TurnInput",
    "TurnRequest",
    "authenticate",
    "confirmation_status",
    "offered_tools",
    "prepare_call",
    "prepare_resume",
    "prepare_turn",
]
