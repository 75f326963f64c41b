"""The OpenAI-compatible provider against a local stub server (no internet)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

from app.errors import ConfigError
from app.llm import OFFLINE_LABEL, get_chat_model, model_label
from app.planner import OfflinePlanner
from app.settings import Settings
from app.tools.catalog import TOOL_CATALOG
from tests.agent.openai_stub import OpenAIStub

API_KEY = "sk-test-secret-4242"


def _tool(name: str) -> dict[str, Any]:
    spec = TOOL_CATALOG[name]
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.args_model.model_json_schema(),
        },
    }


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub() as server:
        yield server


def _settings(stub: OpenAIStub, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "llm_provider": "openai",
        "llm_base_url": stub.base_url,
        "llm_model": "stub-model",
        "llm_api_key": API_KEY,
        "llm_timeout_s": 5.0,
    }
    values.update(overrides)
    return Settings(**values)


DEPLOY_ARGS = {"dashboard_id": "42", "target_env": "prod"}


async def test_streamed_tool_call_is_reassembled_from_fragmented_argument_deltas(stub):
    stub.script.append({"tool_call": {"name": "deploy_dashboard", "arguments": DEPLOY_ARGS}})
    model = get_chat_model(_settings(stub)).bind_tools([_tool("deploy_dashboard")])
    chunks = [chunk async for chunk in model.astream([HumanMessage("deploy 42 to prod")])]
    merged = chunks[0]
    for chunk in chunks[1:]:
        merged = merged + chunk
    assert merged.tool_calls[0]["name"] == "deploy_dashboard"
    assert merged.tool_calls[0]["args"] == DEPLOY_ARGS
    assert stub.requests[-1]["body"]["stream"] is True
    # the arguments really arrived in pieces, none of them the whole JSON
    pieces = [c.tool_call_chunks[0]["args"] for c in chunks if c.tool_call_chunks]
    assert len([p for p in pieces if p]) >= 3
    assert json.dumps(DEPLOY_ARGS) not in pieces


async def test_ainvoke_returns_tool_calls(stub):
    stub.script.append({"tool_call": {"name": "list_backups", "arguments": {"env_id": "dev"}}})
    model = get_chat_model(_settings(stub)).bind_tools([_tool("list_backups")])
    reply = await model.ainvoke([HumanMessage("list backups")])
    assert reply.tool_calls[0]["name"] == "list_backups"
    assert reply.tool_calls[0]["args"] == {"env_id": "dev"}


async def test_non_streamed_request_gets_tool_calls_from_a_json_completion(stub):
    stub.script.append({"tool_call": {"name": "run_backup", "arguments": {"env_id": "prod"}}})
    model = get_chat_model(_settings(stub)).model_copy(update={"streaming": False})
    reply = await model.bind_tools([_tool("run_backup")]).ainvoke([HumanMessage("back up prod")])
    assert stub.requests[-1]["body"].get("stream") in (None, False)
    assert reply.tool_calls == [
        {"name": "run_backup", "args": {"env_id": "prod"}, "id": "call_stub_1", "type": "tool_call"}
    ]


async def test_text_answer_streams_token_by_token(stub):
    stub.script.append({"text": "Three dashboards found in prod."})
    model = get_chat_model(_settings(stub))
    tokens = [chunk.text async for chunk in model.astream([HumanMessage("hi")])]
    assert [t for t in tokens if t] == ["Three ", "dashboards ", "found ", "in ", "prod. "]


async def test_request_carries_tool_schemas_bearer_key_and_model(stub):
    tools = [_tool("deploy_dashboard"), _tool("search_dashboards")]
    model = get_chat_model(_settings(stub)).bind_tools(tools)
    await model.ainvoke([SystemMessage("sys"), HumanMessage("find sales")])
    request = stub.requests[-1]
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["authorization"] == f"Bearer {API_KEY}"
    body = request["body"]
    assert body["model"] == "stub-model"
    assert body["temperature"] == 0
    sent = {t["function"]["name"]: t["function"]["parameters"] for t in body["tools"]}
    assert sent["deploy_dashboard"]["required"] == ["dashboard_id", "target_env"]
    assert sent == {t["function"]["name"]: t["function"]["parameters"] for t in tools}


async def test_second_turn_sends_assistant_tool_call_and_tool_result(stub):
    stub.script.append({"text": "Backup done."})
    history = [
        HumanMessage("back up prod"),
        AIMessage(
            "",
            tool_calls=[{"name": "run_backup", "args": {"env_id": "prod"}, "id": "c1"}],
        ),
        ToolMessage('{"backup_id": "bk-1"}', tool_call_id="c1"),
    ]
    reply = await get_chat_model(_settings(stub)).ainvoke(history)
    roles = [m["role"] for m in stub.requests[-1]["body"]["messages"]]
    assert roles == ["user", "assistant", "tool"]
    assert "Backup done." in reply.text


async def test_missing_api_key_still_builds_a_model_with_a_placeholder(stub):
    model = get_chat_model(_settings(stub, llm_api_key=None))
    await model.ainvoke([HumanMessage("hi")])
    assert stub.requests[-1]["headers"]["authorization"] == "Bearer sk-none"


def test_model_label_names_model_and_host_but_never_the_key(stub):
    settings = _settings(stub)
    host = stub.base_url.split("//")[1].split("/")[0]
    for subject in (settings, get_chat_model(settings)):
        label = model_label(subject)
        assert label == f"openai-compatible: stub-model at {host}"
        assert API_KEY not in label


@pytest.mark.parametrize(
    "subject",
    [
        Settings(llm_provider="offline"),  # offline settings
        OfflinePlanner(),  # the planner itself
    ],
)
def test_offline_provider_is_the_deterministic_planner(subject):
    assert model_label(subject) == OFFLINE_LABEL
    assert isinstance(get_chat_model(Settings(llm_provider="offline")), OfflinePlanner)


def test_default_openai_host_is_shown_when_no_base_url():
    assert model_label(Settings(llm_provider="openai", llm_model="gpt-x")) == (
        "openai-compatible: gpt-x at api.openai.com"
    )


def test_unknown_provider_is_a_config_error():
    settings = Settings().model_copy(update={"llm_provider": "other"})
    with pytest.raises(ConfigError):
        get_chat_model(settings)


async def test_tool_call_and_tokens_survive_langgraph_messages_streaming(stub):
    from langgraph.graph import END, START, MessagesState, StateGraph

    stub.script.append({"tool_call": {"name": "run_backup", "arguments": {"env_id": "prod"}}})
    model = get_chat_model(_settings(stub)).bind_tools([_tool("run_backup")])

    async def call_model(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", call_model)
    graph.add_edge(START, "model")
    graph.add_edge("model", END)
    final = None
    message_chunks = 0
    async for mode, data in graph.compile().astream(
        {"messages": [HumanMessage("back up prod")]}, stream_mode=["messages", "updates"]
    ):
        if mode == "messages":
            message_chunks += 1
        else:
            final = data["model"]["messages"][-1]
    assert stub.requests[-1]["body"]["stream"] is True
    assert message_chunks >= 3
    assert final is not None
    assert final.tool_calls[0]["args"] == {"env_id": "prod"}
