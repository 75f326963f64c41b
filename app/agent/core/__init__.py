"""The agent core: one agent, typed events, thin doors.

Every door (the page, the HTTP stream API, MCP) checks its input once with
``prepare_turn`` / ``prepare_resume`` and hands the checked request to the core, which
yields typed events (``app.events.Event``) with ``conv_id`` and ``seq`` set:

    caller = Caller(token=..., channel="page")
    turn = TurnInput(message=..., history=..., conv_id=..., env_id=..., uicontext=...)
    req = await prepare_turn(turn, core=core, caller=caller)
    async for event in core.run_turn(req):
        match event:
            case TokenEvent(): ...

The core is one of the app's parts (``app.parts``): the composition root builds it and
the doors receive it (``request.app.state.parts.core``, the page function, the MCP
mount); nothing looks it up by a global name.

Modules: ``prepare`` / ``resuming`` (the checks), ``requests`` (Caller, TurnInput,
TurnRequest / ResumeRequest; a resume's input is ``confirm.ResumeInput``), ``refusals``
(RequestRefused and the confirmation status table), ``agent`` (AgentCore), ``protocol``
(the core as its modules see it; EnvView), ``turns`` (tool set and run context of a
turn), ``calls`` (a door's direct tool call: ``prepare_call`` / ``AgentCore.run_call``),
``offer`` (the tools a caller is offered, for a door's tool list), ``runner``
(graph.astream -> events), ``supersede`` (a new message cancels a pending confirmation),
``conversations`` (the read model); issue 11's ``controls`` (stop, follow, the list),
``control`` (run control and registry), ``history`` (the conversation table), ``edits``
(an edit's checks at the door).
"""

from app.agent.core.agent import AgentCore
from app.agent.core.calls import CallRequest, prepare_call
from app.agent.core.conversations import ConversationView
from app.agent.core.offer import OfferedTool, offered_tools
from app.agent.core.prepare import authenticate, prepare_turn
from app.agent.core.protocol import EnvView
from app.agent.core.requests import (
    CONFIRMATION_STATUS,
    Caller,
    ConfirmationRefused,
    HistoryItem,
    RequestRefused,
    ResumeInput,
    ResumeRequest,
    TurnInput,
    TurnRequest,
    confirmation_status,
)
from app.agent.core.resuming import prepare_resume

__all__ = [
    "CONFIRMATION_STATUS",
    "AgentCore",
    "CallRequest",
    "Caller",
    "ConfirmationRefused",
    "ConversationView",
    "EnvView",
    "HistoryItem",
    "OfferedTool",
    "RequestRefused",
    "ResumeInput",
    "ResumeRequest",
    "TurnInput",
    "TurnRequest",
    "authenticate",
    "confirmation_status",
    "offered_tools",
    "prepare_call",
    "prepare_resume",
    "prepare_turn",
]
