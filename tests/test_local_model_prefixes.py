"""``start --local-model`` has the local model keep the prompt prefixes of the product's
turns (``main.keep_prefixes``); the LLM tests' warm-up runs the same function against the
real llama-server (tests/llm/test_local_model_server.py checks what it kept)."""

from __future__ import annotations

from typing import Any

from app.agent.model_step import SYSTEM_PROMPT
from app.sandbox.common import SandboxError
from main import LOCAL_MODEL_PREFIXES, keep_prefixes


class FakeServer:
    model_name = "qwen-test"

    def __init__(self, fail: str | None = None) -> None:
        self.fail = fail
        self.requests: list[dict[str, Any]] = []

    def keep_prefixes(self, requests: list[dict[str, Any]]) -> list[str]:
        if self.fail:
            raise SandboxError(self.fail)
        self.requests = requests
        return ["restored", "computed", "restored"][: len(requests)]


def _tools(request: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in request["tools"]]


def test_each_kept_prefix_is_a_turns_system_text_and_offered_tools() -> None:
    said: list[str] = []
    server = FakeServer()
    keep_prefixes(server, say=said.append)

    assert len(server.requests) == len(LOCAL_MODEL_PREFIXES) == 3
    admin, analyst, dashboard_page = server.requests
    for request in server.requests:
        assert request["model"] == "qwen-test"
        assert request["messages"][0] == {"role": "system", "content": SYSTEM_PROMPT}
    assert len(_tools(admin)) == 22 and _tools(admin)[0] == "show_capabilities"
    assert "delete_dashboard" in _tools(admin) and "delete_dashboard" not in _tools(analyst)
    assert "list_environments" not in _tools(dashboard_page)  # the page's context leaves it out
    assert said == [said[0]] and said[0].startswith("[llm] prompt prefixes restored, computed")


def test_a_prefix_that_cannot_be_kept_is_said_and_nothing_stops() -> None:
    said: list[str] = []
    keep_prefixes(FakeServer(fail="slot save refused"), say=said.append)
    assert len(said) == 1 and "slot save refused" in said[0] and "not kept" in said[0]
