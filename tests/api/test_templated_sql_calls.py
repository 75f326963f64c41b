"""Templated SQL and a virtual dataset's SQL over the HTTP API (``/api/agent/stream`` and
``/resume``): an analyst's ``SELECT 1 -- {{ '\\n' }}; DELETE FROM orders`` on prod (a
DELETE once Superset renders it) used to run unconfirmed as a read, and a dataset with
``pg_terminate_backend()`` was a guarded card. Both are dangerous confirmations now, the
metadata says why, a confirm before the countdown is refused, and nothing runs."""

from __future__ import annotations

from typing import Any

import pytest
from nicegui.testing import User

from app.events import decode_sse
from app.planner import OfflinePlanner
from tests.agent.harness import first, token_for, types_of
from tests.agent.scripted import call, recording_tools
from tests.support import served

PROBE = "SELECT 1 -- {{ '\\n' }}; DELETE FROM orders"

CALLS = [
    # the review's probe through SQL Lab
    ("superset_execute_sql", {"sql": PROBE}, "templated SQL"),
    # a templated filter inside a string literal: Jinja renders it all the same
    ("superset_execute_sql", {"sql": "SELECT * FROM orders WHERE d = '{{ ds }}'"}, "templated SQL"),
    # the review's dataset: SQL Lab's dangerous function, run on every chart render
    (
        "superset_create_dataset",
        {"database": "Sales", "table_name": "killer", "sql": "SELECT pg_terminate_backend(1)"},
        "pg_terminate_backend",
    ),
    # a templated dataset
    (
        "superset_create_dataset",
        {"database": "Sales", "table_name": "t", "sql": PROBE},
        "templated SQL",
    ),
]


def _bearer() -> dict[str, str]:
    return {"Authorization": f"Bearer {token_for(served(), 'ana', 'analyst')}"}


async def _post(user: User, path: str, body: dict[str, Any]) -> Any:
    return await user.http_client.post(path, json=body, headers=_bearer())


@pytest.mark.parametrize(("tool", "args", "why"), CALLS)
async def test_an_analysts_call_on_prod_waits_for_a_dangerous_confirmation(
    user: User, harness: Any, tool: str, args: dict[str, Any], why: str
) -> None:
    log: list[Any] = []
    harness.use_proposal(call(tool, **args, env_id="prod"), log)
    conv = f"templated-{tool}"
    r = await _post(user, "/api/agent/stream", {"message": "run it", "conv_id": conv})
    events = decode_sse(r.text)
    assert "confirm_required" in types_of(events) and "tool_start" not in types_of(events)
    conf = first(events, "confirm_required")
    meta = conf["metadata"]
    assert meta["tool_name"] == tool and meta["env_id"] == "prod" and meta["dangerous"] is True
    assert why in meta["risk_reason"] and conf["countdown_s"] > 0
    early = await _post(
        user,
        "/api/agent/resume",
        {"conv_id": conv, "confirmation_id": conf["confirmation_id"], "decision": "confirm"},
    )
    assert early.status_code == 425 and early.json()["reason"] == "too_early"
    assert log == []  # never run unconfirmed
    assert not harness.audit_rows(kind="executed", user="ana")


async def test_the_offline_planner_path_asks_too(user: User, harness: Any) -> None:
    """The product's planner reads the SQL out of the message: the same card, same reason."""
    log: list[Any] = []
    harness.use(model=OfflinePlanner(), tools=recording_tools(log))
    body = {"message": f"run this sql on prod: {PROBE}", "conv_id": "templated-planner"}
    events = decode_sse((await _post(user, "/api/agent/stream", body)).text)
    meta = first(events, "confirm_required")["metadata"]
    assert meta["tool_name"] == "superset_execute_sql" and meta["dangerous"] is True
    assert meta["risk_reason"].startswith("templated SQL") and log == []
