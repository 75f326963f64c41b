"""The local small LLM (llama-server + Qwen2.5-Coder-0.5B with
app/sandbox/local_model/qwen_tools.jinja) over its OpenAI-compatible API: with three simple
tools offered it answers with proper tool calls (parsed, streamed) and reports its token
usage. Behaviour only: which tool it calls and with what, never its wording."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from langchain_core.messages import AIMessageChunk, BaseMessage
from langchain_openai import ChatOpenAI

from app.sandbox.local_model import LocalModelServer
from main import LOCAL_MODEL_PREFIXES, prefix_requests
from tests.llm_fixtures import LLM_TEST_TIMEOUT_S

pytestmark = [pytest.mark.llm, pytest.mark.timeout(LLM_TEST_TIMEOUT_S)]

REQUEST_TIMEOUT_S = 300.0


def _tool(name: str, description: str, properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": list(properties),
            },
        },
    }


TOOLS = [
    _tool(
        "get_weather",
        "Current weather in a city",
        {"city": {"type": "string", "description": "City name"}},
    ),
    _tool(
        "add_numbers",
        "Add two numbers",
        {"a": {"type": "number"}, "b": {"type": "number"}},
    ),
    _tool(
        "find_dashboard",
        "Find a Superset dashboard by words of its title",
        {"title": {"type": "string", "description": "Words of the dashboard's title"}},
    ),
]
TOOL_NAMES = {t["function"]["name"] for t in TOOLS}


def _chat(server: LocalModelServer) -> ChatOpenAI:
    return ChatOpenAI(
        base_url=server.base_url,
        api_key="none",  # type: ignore[arg-type]
        model=server.model_name,
        temperature=0,
        max_retries=0,
        timeout=REQUEST_TIMEOUT_S,
    )


def test_a_request_comes_back_as_a_call_of_the_right_tool(local_llm: LocalModelServer) -> None:
    reply = _chat(local_llm).bind_tools(TOOLS).invoke("What is the weather in Paris right now?")

    assert [call["name"] for call in reply.tool_calls] == ["get_weather"], reply
    assert "paris" in str(reply.tool_calls[0]["args"].get("city", "")).lower()
    assert reply.tool_calls[0]["id"]


def test_streaming_yields_tool_call_chunks(local_llm: LocalModelServer) -> None:
    chunks: list[BaseMessage] = list(
        _chat(local_llm).bind_tools(TOOLS).stream("Add the numbers 2 and 3.")
    )

    with_calls = [c for c in chunks if isinstance(c, AIMessageChunk) and c.tool_call_chunks]
    assert with_calls, chunks
    whole = with_calls[0]
    for chunk in with_calls[1:]:
        whole = whole + chunk
    assert [call["name"] for call in whole.tool_calls] == ["add_numbers"], whole
    args = whole.tool_calls[0]["args"]
    assert sorted(float(v) for v in args.values()) == [2.0, 3.0], args


def test_the_server_reports_prompt_tokens_and_openai_shaped_calls(
    local_llm: LocalModelServer,
) -> None:
    response = httpx.post(
        f"{local_llm.base_url}/chat/completions",
        json={
            "model": local_llm.model_name,
            "messages": [{"role": "user", "content": "Find the dashboard called Sales Overview"}],
            "tools": TOOLS,
            "temperature": 0,
        },
        timeout=REQUEST_TIMEOUT_S,
    )

    assert response.status_code == 200, response.text
    body = response.json()
    # the three tools' schemas are in the prompt, so it is well over the bare question
    assert body["usage"]["prompt_tokens"] > 150, body["usage"]
    assert body["usage"]["completion_tokens"] > 0
    message = body["choices"][0]["message"]
    assert body["choices"][0]["finish_reason"] == "tool_calls", body
    (call,) = message["tool_calls"]
    assert call["type"] == "function" and call["id"]
    assert call["function"]["name"] in TOOL_NAMES
    assert isinstance(call["function"]["arguments"], str)  # a JSON string, as OpenAI's
    assert isinstance(json.loads(call["function"]["arguments"]), dict)
    assert call["function"]["name"] == "find_dashboard", call


def test_it_serves_on_loopback_only(local_llm: LocalModelServer) -> None:
    assert local_llm.base_url.startswith("http://127.0.0.1:")
    assert local_llm.healthy()
    models = httpx.get(f"{local_llm.base_url}/models", timeout=10).json()
    assert local_llm.model_name in {m["id"] for m in models["data"]}


def test_the_shipped_template_is_read_as_one_with_tool_calls(local_llm: LocalModelServer) -> None:
    """llama.cpp works out the tool-call format from the template; without tool calls in
    it the server would hand the model's JSON back as text."""
    caps = httpx.get(f"{local_llm.root_url}/props", timeout=10).json()["chat_template_caps"]
    assert caps["supports_tools"] and caps["supports_tool_calls"], caps


def test_kept_prompt_prefixes_are_read_back_and_a_turn_reuses_them(
    local_llm: LocalModelServer,
) -> None:
    """The session's warm-up kept the LLM tests' prompt prefixes in the cache (slot files);
    keeping them again reads each back instead of computing it, and a turn that starts the
    same way (the analyst's system text and tools) has the server process only its own
    message, not the 1,700 tokens before it."""
    requests = prefix_requests(local_llm.model_name)
    assert local_llm.keep_prefixes(requests) == ["restored"] * len(LOCAL_MODEL_PREFIXES)
    analyst = requests[LOCAL_MODEL_PREFIXES.index(("analyst", None))]
    turn = {
        **analyst,
        "messages": [analyst["messages"][0], {"role": "user", "content": "list the backups"}],
        "max_tokens": 1,
    }
    # the chat request as the template renders it, then completed as raw text: llama.cpp
    # reports the timings of every completion (a chat reply it cannot parse has none)
    rendered = httpx.post(f"{local_llm.root_url}/apply-template", json=turn, timeout=60)
    assert rendered.status_code == 200, rendered.text
    response = httpx.post(
        f"{local_llm.root_url}/completion",
        json={"prompt": rendered.json()["prompt"], "n_predict": 1, "cache_prompt": True},
        timeout=REQUEST_TIMEOUT_S,
    )
    assert response.status_code == 200, response.text
    timings = response.json()["timings"]
    assert timings["cache_n"] > 1000 and timings["prompt_n"] < 50, timings
