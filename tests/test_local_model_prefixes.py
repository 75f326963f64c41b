"""``start --local-model`` has the local model keep the prompt prefixes of the product's
turns (``main.keep_prefixes``); the LLM tests' warm-up runs the same function against the
real llama-server (tests/llm/test_local_model_server.py checks what it kept)."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from app.agent.prompt import SYSTEM_PROMPT
from app.sandbox.common import SandboxError
from app.sandbox.local_model import LocalModelServer
from app.sandbox.processes import free_port
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
    assert len(_tools(admin)) == 23 and _tools(admin)[0] == "show_capabilities"
    assert "delete_dashboard" in _tools(admin) and "delete_dashboard" not in _tools(analyst)
    assert "list_environments" not in _tools(dashboard_page)  # the page's context leaves it out
    assert said == [said[0]] and said[0].startswith("[llm] prompt prefixes restored, computed")


def test_a_prefix_that_cannot_be_kept_is_said_and_nothing_stops() -> None:
    said: list[str] = []
    keep_prefixes(FakeServer(fail="slot save refused"), say=said.append)
    assert len(said) == 1 and "slot save refused" in said[0] and "not kept" in said[0]


def _server(tmp_path: Path, port: int) -> LocalModelServer:
    return LocalModelServer(
        binary=tmp_path / "llama-server",
        model=tmp_path / "model.gguf",
        port=port,
        log_file=tmp_path / "server.log",
        threads=1,
        prefix_dir=tmp_path / "prefixes",
    )


class _Answers(BaseHTTPRequestHandler):
    """A llama-server stand-in that refuses every request (HTTP 400), and notes them."""

    seen: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        self.seen.append(self.path)
        self.send_response(400)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


def test_a_kept_prefix_survives_a_server_that_is_gone(tmp_path: Path) -> None:
    """No answer (the server stopped): an error, and the saved file stays for next time."""
    server = _server(tmp_path, free_port())
    request = {"model": "m", "messages": [{"role": "system", "content": "x"}], "tools": []}
    (tmp_path / "prefixes").mkdir()
    saved = tmp_path / "prefixes" / f"{server._prefix_key(request)}.bin"
    saved.write_bytes(b"state")
    with pytest.raises(SandboxError, match="slots/0"):
        server.keep_prefixes([request])
    assert saved.read_bytes() == b"state"


def test_a_prefix_file_the_server_refuses_is_computed_again(tmp_path: Path) -> None:
    """The server answered the restore with an error (a file from another build, cut
    short): the file goes, the prefix is computed again; a refused save is an error."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Answers)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        server = _server(tmp_path, httpd.server_address[1])
        request = {"model": "m", "messages": [{"role": "system", "content": "x"}], "tools": []}
        (tmp_path / "prefixes").mkdir()
        saved = tmp_path / "prefixes" / f"{server._prefix_key(request)}.bin"
        saved.write_bytes(b"state")
        _Answers.seen = []
        with pytest.raises(SandboxError, match="action=save"):
            server.keep_prefixes([request])
        assert not saved.exists()
        assert _Answers.seen == [
            "/slots/0?action=restore",
            "/v1/chat/completions",  # refused too: the prompt was read all the same
            "/slots/0?action=save",
        ]
    finally:
        httpd.shutdown()
