"""The approval webhook (``SS_TOOLS_APPROVAL_WEBHOOK_URL``): each new request is posted to
a local HTTP receiver as JSON a Slack or Teams incoming webhook takes (``text``) with the
request's facts, never a secret; a receiver that fails is audited, never raised."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from app.agent.approval_webhook import webhook_payload
from app.agent.core import Caller
from app.agent.core import approvals as queue
from app.events import AwaitingApprovalEvent, ConfirmRequiredEvent
from tests.agent.scripted import call, final_from_tool
from tests.server_proc import free_port
from tests.support import principal_for


class Receiver:
    """A local HTTP server that keeps every JSON body posted to it and answers
    ``status``."""

    def __init__(self, status: int = 200) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.got = threading.Event()
        self.status = status
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                outer.bodies.append(json.loads(self.rfile.read(length)))
                self.send_response(outer.status)
                self.end_headers()
                outer.got.set()

            def log_message(self, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.close()


async def _request_delete(harness: Any, tmp_path: Path, url: str) -> AwaitingApprovalEvent:
    """alice asks to delete dashboard 42 in prod and confirms: a new request."""
    policy = tmp_path / "policy.toml"
    policy.write_text('[approval]\nsecond_person = ["dangerous@prod"]\n')
    harness.configure(
        policy_file=policy, dangerous_countdown_s=0, approval_webhook_url=url,
        public_base_url="https://agent.example.test",
    )  # fmt: skip
    proposal = call("delete_dashboard", dashboard_id="42", env_id="prod")
    harness.use(proposal, final_from_tool, tools={})
    card = next(e for e in await harness.turn("delete 42") if isinstance(e, ConfirmRequiredEvent))
    events = await harness.answer(card.confirmation_id)
    return next(e for e in events if isinstance(e, AwaitingApprovalEvent))


async def test_each_new_request_is_posted_as_a_slack_or_teams_message(
    harness: Any, tmp_path: Path, receiver: Receiver
) -> None:
    waiting = await _request_delete(harness, tmp_path, receiver.url)
    assert receiver.got.wait(30), "the webhook was never posted"
    [body] = receiver.bodies
    assert set(body) == {"text", "approval"}
    text = body["text"]
    assert "alice asks a second person to approve delete_dashboard on prod" in text
    assert "https://agent.example.test/approvals" in text and waiting.approval_id in text
    facts = body["approval"]
    assert facts["id"] == waiting.approval_id and facts["tool"] == "delete_dashboard"
    assert facts["arguments"] == {"dashboard_id": "42", "env_id": "prod"}
    assert (facts["env_id"], facts["tier"], facts["risk_level"]) == ("prod", "prod", "dangerous")
    assert facts["requester"] == "alice" and facts["expires_at"]
    assert not harness.audit_rows(kind="approval_webhook_failed")


def test_the_payload_never_carries_a_secret() -> None:
    request = {
        "id": "ab" * 16, "tool": "superset_execute_sql", "env_id": "prod", "tier": "prod",
        "risk_level": "dangerous", "requester": "alice", "expires_at": "2026-12-01T00:00:00",
        "args": {"sql": "DROP TABLE t", "password": "hunter2", "api_token": "abc"},
    }  # fmt: skip
    body = json.dumps(webhook_payload(request, base_url=None))
    assert "hunter2" not in body and "abc" not in body.replace('"ab', "")
    assert "DROP TABLE t" in body  # the call itself is what the approver must see


@pytest.mark.parametrize("broken", ["answers 500", "nobody listens"])
async def test_a_failing_receiver_is_audited_and_the_request_still_waits(
    harness: Any, tmp_path: Path, broken: str
) -> None:
    receiver = Receiver(status=500)
    url = receiver.url if broken == "answers 500" else f"http://127.0.0.1:{free_port()}/hook"
    try:
        waiting = await _request_delete(harness, tmp_path, url)
        book_rows: list[dict[str, Any]] = []
        for _ in range(300):  # the post runs in the background, off the event loop
            book_rows = harness.audit_rows(kind="approval_webhook_failed")
            if book_rows:
                break
            await asyncio.sleep(0.05)
        [row] = book_rows
        assert row["args"]["approval_id"] == waiting.approval_id
        assert row["reason"] in ("the receiver answered 500", "not delivered: ConnectError")
        rows = await _pending(harness)
        assert [r["id"] for r in rows] == [waiting.approval_id]  # it waits all the same
    finally:
        receiver.close()


async def _pending(harness: Any) -> list[dict[str, Any]]:
    bob = Caller(principal=principal_for(harness.parts, "bob"), channel="http")
    return await queue.list_approvals(harness.core, bob)
