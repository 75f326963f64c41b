"""A tiny OpenAI-compatible chat server for tests (stdlib http.server in a thread).

``POST /v1/chat/completions`` answers from a script of replies, each either
``{"text": "..."}`` or ``{"tool_call": {"name": ..., "arguments": {...}}}``; when the
script is empty it answers the text ``"ok"``. With ``"stream": true`` it sends SSE
chunks: the text word by word, or the tool call with its argument JSON cut into
fragments across several deltas, then ``data: [DONE]``. Every request is recorded
(lower-cased headers and the JSON body) in ``stub.requests``.

Usage::

    with OpenAIStub() as stub:
        stub.script.append({"tool_call": {"name": "list_backups", "arguments": {}}})
        ChatOpenAI(base_url=stub.base_url, ...)
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "stub-model"


def _envelope(kind: str, choice: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A chat completion (``kind``: ``chat.completion`` or its ``.chunk``) of one choice."""
    return {
        "id": "chatcmpl-stub",
        "object": kind,
        "created": int(time.time()),
        "model": MODEL,
        "choices": [{"index": 0, **choice}],
        **extra,
    }


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return _envelope("chat.completion.chunk", {"delta": delta, "finish_reason": finish})


def fragments(text: str, parts: int = 3) -> list[str]:
    """``text`` cut into ``parts`` pieces (the way servers stream tool-call arguments)."""
    step = max(1, -(-len(text) // parts))
    return [text[i : i + step] for i in range(0, len(text), step)] or [""]


def stream_chunks(reply: dict[str, Any]) -> list[dict[str, Any]]:
    chunks = [_chunk({"role": "assistant", "content": ""})]
    if "tool_call" in reply:
        call = reply["tool_call"]
        arguments = json.dumps(call.get("arguments", {}))
        head = {"index": 0, "id": "call_stub_1", "type": "function"}
        chunks.append(
            _chunk({"tool_calls": [{**head, "function": {"name": call["name"], "arguments": ""}}]})
        )
        for piece in fragments(arguments):
            chunks.append(_chunk({"tool_calls": [{"index": 0, "function": {"arguments": piece}}]}))
        chunks.append(_chunk({}, "tool_calls"))
        return chunks
    for word in reply.get("text", "").split(" "):
        chunks.append(_chunk({"content": word + " "}))
    chunks.append(_chunk({}, "stop"))
    return chunks


def completion(reply: dict[str, Any]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.get("text")}
    finish = "stop"
    if "tool_call" in reply:
        call = reply["tool_call"]
        message["tool_calls"] = [
            {
                "id": "call_stub_1",
                "type": "function",
                "function": {
                    "name": call["name"],
                    "arguments": json.dumps(call.get("arguments", {})),
                },
            }
        ]
        finish = "tool_calls"
    return _envelope(
        "chat.completion",
        {"message": message, "finish_reason": finish},
        usage={"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    )


class OpenAIStub:
    def __init__(self) -> None:
        self.script: deque[dict[str, Any]] = deque()
        self.requests: list[dict[str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # quiet test output
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                stub.requests.append(
                    {
                        "path": self.path,
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                        "body": body,
                    }
                )
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self.send_error(404, "unknown path")
                    return
                reply = stub.script.popleft() if stub.script else {"text": "ok"}
                if body.get("stream"):
                    self._send_stream(reply)
                else:
                    self._send_json(completion(reply))

            def _send_json(self, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _send_stream(self, reply: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                for chunk in stream_chunks(reply):
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> OpenAIStub:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> OpenAIStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
