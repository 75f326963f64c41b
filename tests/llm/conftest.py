"""The product answered by the local small LLM, for the LLM-mode tests of this folder.

``llm_product`` (module): the real product (``python main.py``, a subprocess) with the
OpenAI-compatible provider pointed at the session's ``local_llm`` server, against the real
Superset sandbox (session-scoped and shared), with an admin ``ops`` and an analyst
``ana`` who sign in with ``PASSWORD``. One product per module: the model is slow (a turn
takes 10-90 s on 2 shared cores), so each module asks it only a few turns.

``prod_dashboard`` (module): a dashboard made on the sandbox's prod for the tests that
ask to delete it (the confirmation is always withdrawn or cancelled; the dashboard is
removed on the way out).

The helpers read the product's behaviour only (event types, typed fields, audit rows,
``done``), never the model's wording.
"""

from __future__ import annotations

import csv
import io
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from app.events import decode_sse, parse_event
from tests.browser.conftest import PASSWORD, product
from tests.sandbox_fixtures import sandbox_dashboard
from tests.server_proc import Server, add_user

#: A turn of the small model on a busy 2-core machine: a prompt of up to ~3,000 tokens
#: (every tool, when the offer cannot be narrowed) at ~50 tokens/s, twice when it is
#: repaired, plus the answer after a tool result.
TURN_TIMEOUT_S = 600.0
#: What the product must never show for what a model wrote.
GENERIC_FAILURE = "could not finish this turn"


def answered_by(local_llm: Any) -> dict[str, str]:
    """The product's settings for being answered by the local model."""
    return {
        "SS_TOOLS_LLM_PROVIDER": "openai",
        "SS_TOOLS_LLM_BASE_URL": local_llm.base_url,
        "SS_TOOLS_LLM_MODEL": local_llm.model_name,
        "SS_TOOLS_LLM_API_KEY": "none",
        "SS_TOOLS_LLM_TIMEOUT_S": str(TURN_TIMEOUT_S),
        # an answer or a call is short (the tests' calls: under 50 tokens); a model that
        # pads or loops stops here instead of at 512 (asked for "an overview of your
        # tools", it copies the tool list until the cap: twice, with the repair): a test
        # asserts on what the product does with an answer, never on a long answer's words
        "SS_TOOLS_LLM_MAX_TOKENS": "112",
    }


@pytest.fixture(scope="module")
def llm_product(
    local_llm: Any, superset_sandbox: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    settings = {**answered_by(local_llm), "SS_TOOLS_DANGEROUS_COUNTDOWN_S": "3"}
    with product(tmp_path_factory.mktemp("llm-product"), superset_sandbox, **settings) as srv:
        add_user(srv.env, "ana", "analyst", PASSWORD)
        yield srv


@pytest.fixture(scope="module")
def prod_dashboard(superset_sandbox: Any) -> Iterator[int]:
    with sandbox_dashboard(superset_sandbox, "prod", "LLM Keep", "llm-keep") as dashboard_id:
        yield dashboard_id


@dataclass
class Turn:
    """One streamed request's events (as dicts, each checked against the event models)."""

    events: list[dict[str, Any]]
    conv_id: str
    raw: str = field(repr=False, default="")

    @property
    def types(self) -> list[str]:
        return [e["type"] for e in self.events]

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events if e["type"] == kind]

    def offers(self) -> list[dict[str, Any]]:
        return [o for e in self.events for o in e.get("offers") or []]

    def lines(self) -> list[dict[str, Any]]:
        """The refusals' lines the page shows (``error`` and ``permission_denied``)."""
        return [e for e in self.events if e["type"] in ("error", "permission_denied")]

    def ended_well(self) -> None:
        """The invariants of any turn, whatever the model wrote: every event is one of the
        product's, the stream ends with ``done``, no generic failure, no stack trace; at
        most one line for what went wrong, and never the step cap."""
        for event in self.events:
            parse_event(event)
        assert self.types and self.types[-1] == "done", self.types
        assert not [e for e in self.of("error") if e["code"] == "agent_error"], self.events
        assert GENERIC_FAILURE not in self.raw, self.raw
        assert "Traceback" not in self.raw and 'File "' not in self.raw, self.raw
        assert len(self.lines()) <= 1, self.lines()
        assert all(m.get("problem") != "step_cap" for m in self.of("message")), self.events

    def reached(self) -> list[str]:
        """The tools the turn ran or stopped at the confirmation card of."""
        cards = [e["metadata"]["tool_name"] for e in self.of("confirm_required")]
        return [e["tool_name"] for e in self.of("tool_start")] + cards

    def said(self) -> str:
        """The turn's last sentence for the person (a message event's text)."""
        messages = self.of("message")
        assert messages, self.types
        return str(messages[-1]["text"])


def token(srv: Server, username: str) -> str:
    return srv.token(username, PASSWORD)


def stream(srv: Server, bearer: str, path: str, body: dict[str, Any]) -> Turn:
    """POST an SSE door (``/api/agent/stream``, ``/call`` …) and read the whole stream."""
    body = {"conv_id": f"llm-{uuid.uuid4().hex[:12]}", **body}
    response = httpx.post(
        srv.url + path,
        json=body,
        headers={"Authorization": f"Bearer {bearer}"},
        timeout=TURN_TIMEOUT_S,
    )
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    return Turn(decode_sse(response.text), body["conv_id"], response.text)


def ask(srv: Server, bearer: str, message: str, **body: Any) -> Turn:
    """One chat turn over HTTP (``POST /api/agent/stream``)."""
    return stream(srv, bearer, "/api/agent/stream", {"message": message, **body})


def audit(srv: Server, admin: str, conv_id: str) -> list[dict[str, str]]:
    """The audit rows of ``conv_id`` (the admin's CSV export), newest first."""
    response = httpx.get(
        srv.url + "/api/audit.csv", headers={"Authorization": f"Bearer {admin}"}, timeout=30
    )
    assert response.status_code == 200, response.text
    return [r for r in csv.DictReader(io.StringIO(response.text)) if r["conv_id"] == conv_id]
