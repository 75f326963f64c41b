"""``OfflinePlanner``: a deterministic chat model with no network and no LLM, one model
among others: messages and bound tools in, an ``AIMessage`` out.

It plans with :func:`app.planner.plan.plan_reply`. It reads the turn as any model does:
the turn's facts and the page from the prompt (:mod:`app.planner.context`), the tools'
results (a refusal as ``REFUSED: {json}``, :mod:`app.planner.outcomes`). It knows the
tools of the catalog it is handed (``OfflinePlanner(catalog=...)``: what each can do,
its example and trigger phrases, its arguments; :mod:`app.planner.known`); without one,
the bound tools by name only. ``bind_tools`` returns a copy that remembers the bound
tool names (OpenAI dicts, ``BaseTool``s, pydantic classes or functions). Streaming emits
the text a few words at a time, then one last chunk carrying the tool call, so
``ainvoke`` and ``astream`` (and LangGraph's "messages" streaming) both yield
``tool_calls``.

``runner`` (set by the composition root, ``app.planner_runs``) plans an asynchronous
call's reply off the event loop, in a child process within a time budget; without one
(the planner's own tests, the eval) a reply is planned in the calling thread.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field, PrivateAttr, SkipValidation

from app.planner.known import Known
from app.planner.plan import Reply, plan_reply
from app.policy import ToolSpec

_TOKENS = re.compile(r"\s*\S+\s*|\s+")
#: plans a reply elsewhere: (messages, bound tool names) -> the reply
Runner = Callable[[list[BaseMessage], tuple[str, ...] | None], Awaitable[Reply]]


def tool_name(tool: Any) -> str:
    """The name of a tool given as an OpenAI dict, a BaseTool, a pydantic class or a function."""
    if isinstance(tool, dict) and "function" in tool:
        return str(tool["function"]["name"])
    if isinstance(tool, dict) and "name" in tool:
        return str(tool["name"])
    if isinstance(tool, str):
        return tool
    return str(convert_to_openai_tool(tool)["function"]["name"])


STREAM_CHUNK_CHARS = 32


def _pieces(text: str, size: int = STREAM_CHUNK_CHARS) -> Iterator[str]:
    """Whole words, about ``size`` characters at a time: the text is ready at once, so
    word-by-word streaming would only multiply events (and per-event cost under load)."""
    piece = ""
    for token in _TOKENS.findall(text):
        piece += token
        if len(piece) >= size or token.endswith("\n"):
            yield piece
            piece = ""
    if piece:
        yield piece


def _chunks(reply: Reply) -> Iterator[AIMessageChunk]:
    for piece in _pieces(reply.content):
        yield AIMessageChunk(content=piece)
    tool_call_chunks = [
        tool_call_chunk(
            name=call["name"],
            args=json.dumps(call["args"], ensure_ascii=False),
            id=call["id"],
            index=index,
        )
        for index, call in enumerate(reply.tool_calls)
    ]
    yield AIMessageChunk(content="", tool_call_chunks=tool_call_chunks, chunk_position="last")


class OfflinePlanner(BaseChatModel):
    """Deterministic planner for the catalog's tools (English and Russian); no network."""

    bound_tool_names: tuple[str, ...] | None = None
    # LangChain serialises a model for its callbacks once per instance (with its repr, as
    # the planner is not LangChain-serialisable), and every model call binds a copy: the
    # repr is its name and its bound tools, nothing else.
    catalog: SkipValidation[Mapping[str, ToolSpec] | None] = Field(default=None, repr=False)
    runner: SkipValidation[Runner | None] = Field(default=None, repr=False, exclude=True)
    _known: Known = PrivateAttr(default_factory=Known)

    def __repr__(self) -> str:
        return f"OfflinePlanner(bound_tool_names={self.bound_tool_names!r})"

    def model_post_init(self, context: Any, /) -> None:
        super().model_post_init(context)
        self._known = Known(self.catalog)

    @property
    def _llm_type(self) -> str:
        return "ss-tools-offline-planner"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"model": "offline-planner", "bound_tools": self.bound_tool_names}

    def bind_tools(
        self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any
    ) -> OfflinePlanner:
        return self.model_copy(update={"bound_tool_names": tuple(tool_name(t) for t in tools)})

    def _reply(self, messages: list[BaseMessage]) -> Reply:
        return plan_reply(messages, self.bound_tool_names, self._known)

    async def _areply(self, messages: list[BaseMessage]) -> Reply:
        if self.runner is None:
            return self._reply(messages)
        return await self.runner(messages, self.bound_tool_names)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = self._reply(messages)
        message = AIMessage(content=reply.content, tool_calls=reply.tool_calls)
        return ChatResult(generations=[ChatGeneration(message=message)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = await self._areply(messages)
        message = AIMessage(content=reply.content, tool_calls=reply.tool_calls)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for message in _chunks(self._reply(messages)):
            chunk = ChatGenerationChunk(message=message)
            if run_manager is not None:
                run_manager.on_llm_new_token(message.text, chunk=chunk)
            yield chunk

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        """The reply's chunks (as ``_stream``'s), each reported to the async callbacks."""
        for message in _chunks(await self._areply(messages)):
            chunk = ChatGenerationChunk(message=message)
            if run_manager is not None:
                await run_manager.on_llm_new_token(message.text, chunk=chunk)
            yield chunk
