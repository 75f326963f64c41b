"""The agent core: one agent, typed events, thin doors.

Every door (the page, the HTTP stream API, MCP) checks its input once (``checks``:
``prepare_turn`` / ``prepare_call`` / ``prepare_resume``) and hands the checked request to
:class:`AgentCore`, which yields typed events (``app.events``) with ``conv_id`` and ``seq``
set. Modules, read top to bottom: ``requests`` (what a door hands in, a refusal),
``checks``, ``agent`` (AgentCore), ``runs`` (what a run does, and the tool set and
context of a run), ``runner`` (the graph's output as events), ``control`` (one run at a
time, stop; in one process and across replicas), ``stopping`` (a person's Stop and its
answer), ``conversations`` (the read model and the list), ``edits`` (the edit form).
"""

from app.agent.core.agent import AgentCore, EnvView, StopReport
from app.agent.core.checks import authenticate, prepare_call, prepare_resume, prepare_turn
from app.agent.core.conversations import ConversationSummary, ConversationView
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
from app.agent.core.runs import OfferedTool, offered_tools

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
