"""The offline planner as the planner tests drive it: bound to the catalog's tools
(``planner``), the system prompt it reads (``system``, a dashboard page's context in
``DASHBOARD_PAGE``), a refused call's result as the core writes it (``refused``), one
message (``ask``), the answer after one tool result (``after_tool``), and a turn of
several steps, each tool call answered by the next result (``converse`` on the stable
system text, ``turn`` as the core lays a turn out, with its facts; ``calls`` lists what
the replies proposed)."""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from app.agent.prompt import build_system_prompt, prompt_messages
from app.context import inject_uicontext
from app.facts import Refusal, TurnFacts
from app.planner import OfflinePlanner
from tests.planner.test_planner_eval import CATALOG, openai_tools

DASHBOARD_PAGE = {"objectType": "dashboard", "objectId": "42", "envId": "prod"}


def system(selected: str | None = "dev", page: dict[str, Any] | None = None) -> SystemMessage:
    return SystemMessage(
        build_system_prompt(
            selected_env_id=selected,
            environments=[{"id": "dev", "tier": "dev"}, {"id": "prod", "tier": "prod"}],
            lang="en",
            uicontext_block=inject_uicontext("", page),
        )
    )


def planner(names: list[str] | None = None) -> Any:
    return OfflinePlanner(catalog=CATALOG).bind_tools(openai_tools(names))


def refused(code: str, tool: str = "deploy_dashboard", **facts: Any) -> str:
    """A refused call's result as the core writes it (``REFUSED: {json}``)."""
    message = facts.pop("message", f"{tool} was refused ({code})")
    return Refusal(code=code, tool_name=tool, message=message, **facts).tool_result()


def ask(model: Any, text: str, page: dict[str, Any] | None = None) -> AIMessage:
    return model.invoke([system(page=page), HumanMessage(text)])


def after_tool(result: str, request: str, tool_name: str = "deploy_dashboard") -> str:
    call = {"name": tool_name, "args": {"dashboard_id": "42", "target_env": "prod"}, "id": "c1"}
    messages = [
        system(),
        HumanMessage(request),
        AIMessage("", tool_calls=[call]),
        ToolMessage(result, tool_call_id="c1"),
    ]
    return planner().invoke(messages).text


def converse(text: str, *results: Any, page: dict[str, Any] | None = None) -> list[AIMessage]:
    """The planner's replies along one turn, each tool call answered by the next result."""
    model, replies = planner(), []
    messages: list[Any] = [system(page=page), HumanMessage(text)]
    for result in [*results, None]:
        reply = model.invoke(messages)
        replies.append(reply)
        if not reply.tool_calls or result is None:
            break
        content = result if isinstance(result, str) else json.dumps(result)
        messages += [reply, ToolMessage(content, tool_call_id=reply.tool_calls[0]["id"])]
    return replies


def calls(replies: list[AIMessage]) -> list[tuple[str, dict[str, Any]]]:
    return [(c["name"], c["args"]) for r in replies for c in r.tool_calls]


FACTS = TurnFacts("dev", {"dev": "dev", "staging": "staging", "prod": "prod"})


def turn(history: list[Any], text: str, *results: Any) -> list[AIMessage]:
    """One turn as the core runs it (the turn's facts in a system message right before the
    person's message), each tool call answered by the next result; ``history`` grows."""
    model, replies = planner(), []
    history.append(HumanMessage(text))
    for result in [*results, None]:
        reply = model.invoke(prompt_messages(history, FACTS, None))
        replies.append(reply)
        history.append(reply)
        if not reply.tool_calls or result is None:
            break
        content = result if isinstance(result, str) else json.dumps(result)
        history.append(ToolMessage(content, tool_call_id=reply.tool_calls[0]["id"]))
    return replies
