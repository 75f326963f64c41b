"""agent_handler / resume_handler end to end in process: confirmations and their
integrity (a write only after its confirm; a denial's reason to the model; the pending
card answered without its id; replayed, foreign, expired and early answers refused; a new
message supersedes a card), and a conversation only its owner continues. Context, the
guard, retries, timeouts and maintenance: test_handler.py."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from app.facts import read_refusal
from app.store.models import Confirmation
from tests.agent.harness import first, types_of
from tests.agent.scripted import call

# --- confirmations ---------------------------------------------------------------------------


async def test_guarded_write_runs_only_after_confirm(harness: Any) -> None:
    log: list[Any] = []
    harness.use_deploy(log)
    events = await harness.run("deploy 42 to prod")
    conf = first(events, "confirm_required")
    assert conf["metadata"]["risk_level"] == "guarded"
    assert conf["metadata"]["env_context"] == "prod"
    assert types_of(events)[-1] == "done" and events[-1]["state"] == "awaiting_confirmation"
    assert log == []
    events = await harness.resume(conf["confirmation_id"], "confirm")
    assert first(events, "tool_end")["status"] == "completed"
    assert log[0][0] == "deploy_dashboard"
    assert first(events, "message")["text"].startswith("Result:")


async def test_deny_cancels_and_passes_the_reason_to_the_model(harness: Any) -> None:
    log: list[Any] = []
    rec = harness.use_deploy(log)
    conf = first(await harness.run("deploy 42 to prod"), "confirm_required")
    events = await harness.resume(conf["confirmation_id"], "deny", reason="not during the demo")
    assert first(events, "tool_end")["status"] == "cancelled"
    assert log == []
    tool_msg = rec.seen[-1][-1]
    refusal = read_refusal(tool_msg.content)
    assert refusal is not None and refusal.code == "cancelled"
    assert refusal.reason == "not during the demo"
    assert harness.audit_rows(kind="cancelled", conv_id=harness.conv_id)


async def test_resume_handler_as_design_lists_it_answers_the_pending_card(harness: Any) -> None:
    """``resume_handler(conv_id, user_jwt, decision)`` with no confirmation id answers the
    conversation's pending card, once; with nothing pending it is refused, audited."""
    from app.agent.handler import resume_handler
    from tests.agent.harness import Answer, _collect

    log: list[Any] = []
    harness.use_deploy(log)
    first(await harness.run("deploy 42 to prod"), "confirm_required")
    token = harness._token(Answer())
    events = await _collect(resume_handler(harness.conv_id, token, "confirm", core=harness.core))
    assert first(events, "tool_end")["status"] == "completed"
    assert [entry[0] for entry in log] == ["deploy_dashboard"]
    again = await _collect(resume_handler(harness.conv_id, token, "confirm", core=harness.core))
    assert types_of(again)[-2:] == ["error", "done"] and len(log) == 1
    assert first(again, "error")["code"] == "confirmation_unknown"
    assert harness.audit_rows(kind="confirmation_refused", conv_id=harness.conv_id)


async def test_the_contract_functions_default_to_the_running_apps_core(harness: Any) -> None:
    """``core=`` is optional: without it the handler runs on the parts the app installed."""
    from dataclasses import replace

    from nicegui import app as nicegui_app

    from app.agent.handler import agent_handler
    from app.parts import PARTS_STATE
    from tests.agent.harness import Answer, _collect

    harness.use("Hello from the installed core.")
    before = getattr(nicegui_app.state, PARTS_STATE, None)
    setattr(nicegui_app.state, PARTS_STATE, replace(harness.parts, core=harness.core))
    try:
        token = harness._token(Answer())
        conv_id = uuid.uuid4().hex
        frames = agent_handler("hi", None, conv_id, "alice", token, "dev")
        events = await _collect(frames)
    finally:
        setattr(nicegui_app.state, PARTS_STATE, before)
    assert first(events, "message")["text"] == "Hello from the installed core."


async def test_replayed_confirmation_is_refused(harness: Any) -> None:
    harness.use_deploy()
    conf = first(await harness.run("deploy"), "confirm_required")
    await harness.resume(conf["confirmation_id"], "confirm")
    again = await harness.resume(conf["confirmation_id"], "confirm")
    assert first(again, "error")["code"] in {"confirmation_replayed", "confirmation_not_pending"}
    assert harness.audit_rows(kind="confirmation_refused", conv_id=harness.conv_id)


async def test_foreign_user_cannot_confirm(harness: Any) -> None:
    log: list[Any] = []
    harness.use_deploy(log)
    conf = first(await harness.run("deploy"), "confirm_required")
    events = await harness.resume(conf["confirmation_id"], "confirm", user="mallory")
    assert first(events, "error")["code"] == "confirmation_foreign_user"
    assert log == []


async def test_expired_confirmation_is_refused(harness: Any) -> None:
    harness.use_deploy()
    conf = first(await harness.run("deploy"), "confirm_required")
    with harness.parts.db.session() as s:
        row = s.get(Confirmation, conf["confirmation_id"])
        row.expires_at = datetime.now(UTC) - timedelta(seconds=1)
        s.add(row)
    events = await harness.resume(conf["confirmation_id"], "confirm")
    assert first(events, "error")["code"] == "confirmation_expired"


async def test_dangerous_confirm_before_the_countdown_is_refused(harness: Any) -> None:
    log: list[Any] = []
    harness.use_proposal(call("delete_dashboard", dashboard_id="7", env_id="prod"), log)
    conf = first(await harness.run("delete dashboard 7 on prod"), "confirm_required")
    assert conf["metadata"]["dangerous"] is True and conf["countdown_s"] == 10
    early = await harness.resume(conf["confirmation_id"], "confirm")
    assert first(early, "error")["code"] == "confirmation_too_early" and log == []
    with harness.parts.db.session() as s:  # the server's clock moves on 10 s
        row = s.get(Confirmation, conf["confirmation_id"])
        row.sent_at = row.sent_at - timedelta(seconds=10)
        s.add(row)
    late = await harness.resume(conf["confirmation_id"], "confirm")
    assert first(late, "tool_end")["status"] == "completed" and log[0][0] == "delete_dashboard"


async def test_new_message_supersedes_a_pending_confirmation(harness: Any) -> None:
    log: list[Any] = []
    harness.use_deploy(log, "Fine, no deploy.")
    conf = first(await harness.run("deploy"), "confirm_required")
    events = await harness.run("actually, never mind", conv_id=harness.conv_id)
    assert any(e["type"] == "tool_end" and e["status"] == "cancelled" for e in events)
    assert log == []
    refused = await harness.resume(conf["confirmation_id"], "confirm")
    assert first(refused, "error")["code"].startswith("confirmation_")


async def test_another_user_cannot_continue_a_conversation(harness: Any) -> None:
    harness.use("Hello.", "Hello again.")
    await harness.run("hi")
    events = await harness.run("hi", user="mallory", conv_id=harness.conv_id)
    assert first(events, "error")["status_code"] == 403
