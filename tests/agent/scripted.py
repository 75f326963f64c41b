"""A scripted chat model for graph tests: replies come from a list; every call records the
names of the tools it was bound with, so tests can assert the filtered subset."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import ConfigDict, Field

from app.tools.catalog import TOOL_CATALOG

_ids = itertools.count(1)


class Recorder:
    def __init__(self, script: list[Any]) -> None:
        self.script = list(script)
        self.bound: list[list[str]] = []
        self.seen: list[list[BaseMessage]] = []


def call(name: str, **args: Any) -> AIMessage:
    """An AIMessage proposing one tool call."""
    return AIMessage(
        content="",
        tool_calls=[{"name": name, "args": args, "id": f"call_{next(_ids)}", "type": "tool_call"}],
    )


def recording_tools(log: list[tuple[str, Any]]) -> dict[str, Any]:
    """Every tool of the catalog, each appending ``(name, args)`` to ``log`` and answering
    ``{"tool", "ok", "args"}``."""

    def make(name: str) -> Any:
        async def tool(args: Any, deps: Any) -> Any:
            log.append((name, args.model_dump()))
            return {"tool": name, "ok": True, "args": args.model_dump()}

        return tool

    return {name: make(name) for name in TOOL_CATALOG}


def final_from_tool(messages: list[BaseMessage], bound: list[str]) -> str:
    """Answer with the last tool result (what a real model would summarise)."""
    last = messages[-1]
    return f"Result: {last.content}"


class ScriptedChatModel(BaseChatModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)
    recorder: Recorder
    bound_names: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptedChatModel:  # type: ignore[override]
        names = [t["function"]["name"] if isinstance(t, dict) else t.name for t in tools]
        return self.model_copy(update={"bound_names": names})

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        self.recorder.bound.append(list(self.bound_names))
        self.recorder.seen.append(list(messages))
        item: Any = self.recorder.script.pop(0) if self.recorder.script else "Done."
        if isinstance(item, Callable) and not isinstance(item, AIMessage):  # type: ignore[arg-type]
            item = item(messages, self.bound_names)
        msg = item if isinstance(item, AIMessage) else AIMessage(content=str(item))
        return ChatResult(generations=[ChatGeneration(message=msg)])


def scripted(*script: Any) -> tuple[ScriptedChatModel, Recorder]:
    rec = Recorder(list(script))
    return ScriptedChatModel(recorder=rec), rec
