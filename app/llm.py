"""The composition root's choice of chat model: the offline planner or an
OpenAI-compatible server. The core gets the model and its label from here
(``app.parts.build_parts``); no core module imports a model's code.

``SS_TOOLS_LLM_PROVIDER=offline`` (default) → :class:`OfflinePlanner` (deterministic,
no network), handed the tools' catalog so it knows what each tool can do and asks
for; it plans each reply in a child process within ``SS_TOOLS_PLANNER_BUDGET_S``
(:mod:`app.planner_runs`). ``openai`` → ``ChatOpenAI`` against ``SS_TOOLS_LLM_BASE_URL`` with
``SS_TOOLS_LLM_MODEL`` and ``SS_TOOLS_LLM_API_KEY``, asked for one tool call per reply
unless ``SS_TOOLS_LLM_PARALLEL_TOOL_CALLS`` says the model handles several.

:func:`tool_ranker` is the planner's reading of a request as a ranking of the tools,
handed to the core so each model call is offered the few tools it most likely needs;
:func:`result_reporter` the planner's sentences about a tool's result, which answer a
turn that a model ended by asking again for a call whose result it already had.

Each ChatOpenAI gets its own async HTTP client: langchain-openai otherwise shares one
lru-cached client per (base_url, timeout) across the process, and that client breaks
("Event loop is closed") when it outlives the event loop it was first used on (tests
with a loop per test). :func:`model_label` never shows the API key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import httpx2  # openai 3.x's HTTP client
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from app.errors import ConfigError
from app.i18n import t
from app.planner import OfflinePlanner
from app.planner.answers import ResultReporter
from app.planner.rank import ToolRanker
from app.planner_runs import planner_runner
from app.policy import ToolSpec
from app.settings import Settings

OFFLINE_LABEL = t("offline_planner", "en")  # the page says it in its language
DEFAULT_OPENAI_HOST = "api.openai.com"


class OneCallChatOpenAI(ChatOpenAI):
    """``ChatOpenAI`` that asks the server for at most one tool call per reply
    (``parallel_tool_calls: false``) whenever tools are bound: for a model not known to
    handle parallel calls (``Settings.llm_parallel_tool_calls`` off)."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        if tools and kwargs.get("parallel_tool_calls") is None:
            kwargs["parallel_tool_calls"] = False
        return super().bind_tools(tools, **kwargs)


def _openai_model(settings: Settings) -> BaseChatModel:
    chat = ChatOpenAI if settings.llm_parallel_tool_calls else OneCallChatOpenAI
    return chat(
        model=settings.llm_model,
        base_url=settings.llm_base_url,
        api_key=settings.llm_api_key or SecretStr("sk-none"),
        temperature=0,
        max_tokens=settings.llm_max_tokens,  # type: ignore[call-arg]  # a declared field
        max_retries=1,
        timeout=settings.llm_timeout_s,
        # a slow local model may take minutes before its first chunk (a long prompt on a
        # CPU): the wait between chunks is the same limit, not langchain-openai's 120 s
        stream_chunk_timeout=settings.llm_timeout_s,
        streaming=True,
        stream_usage=True,  # the server's token counts (the bench reads them)
        http_async_client=httpx2.AsyncClient(timeout=settings.llm_timeout_s),
    )


def get_chat_model(
    settings: Settings, catalog: Mapping[str, ToolSpec] | None = None
) -> BaseChatModel:
    """The chat model ``settings.llm_provider`` names. ``catalog`` (the rules' tools) is
    what the offline planner knows of the tools; an LLM reads the bound tools' schemas."""
    if settings.llm_provider == "offline":
        runner = planner_runner(
            catalog, budget_s=settings.planner_budget_s, workers=settings.planner_workers
        )
        return OfflinePlanner(catalog=catalog, runner=runner)
    if settings.llm_provider == "openai":
        return _openai_model(settings)
    raise ConfigError(f"unknown SS_TOOLS_LLM_PROVIDER {settings.llm_provider!r}")


def tool_ranker(settings: Settings, catalog: Callable[[], Mapping[str, ToolSpec]]) -> Any:
    """Which tools a request most likely asks for (the offline planner's reading, handed
    to the core: ``app.agent.tool_offer``), for the catalog ``catalog()`` returns; None
    when every allowed tool is offered (``llm_tools_top_k`` 0). For any model."""
    return ToolRanker(catalog) if settings.llm_tools_top_k > 0 else None


def result_reporter(catalog: Callable[[], Mapping[str, ToolSpec]]) -> ResultReporter:
    """What a tool's result holds, in the offline planner's sentences (handed to the core:
    ``app.agent.turn_limits``), for the catalog ``catalog()`` returns. For any model."""
    return ResultReporter(catalog)


def _host(base_url: str | None) -> str:
    if not base_url:
        return DEFAULT_OPENAI_HOST
    parts = urlsplit(base_url if "//" in base_url else f"//{base_url}")
    host = parts.hostname or base_url
    return f"{host}:{parts.port}" if parts.port else host


def model_label(target: Any) -> str:
    """A short human label of a model or of the settings' provider (never the API key)."""
    if isinstance(target, Settings):
        if target.llm_provider == "offline":
            return OFFLINE_LABEL
        return f"openai-compatible: {target.llm_model} at {_host(target.llm_base_url)}"
    if isinstance(target, OfflinePlanner):
        return OFFLINE_LABEL
    name = getattr(target, "model_name", None) or getattr(target, "model", None)
    base_url = getattr(target, "openai_api_base", None)
    if name:
        return f"openai-compatible: {name} at {_host(base_url)}"
    return type(target).__name__
