"""Every answer "confirm", edited or not, is checked again when it arrives — for the
caller's CURRENT role (read from the users table, not the old token's claim or the few
seconds' cache), the environment and its tier, and a maintenance window — before anything
runs."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from app.agent.core import (
    Caller,
    ConfirmationRefused,
    RequestRefused,
    ResumeInput,
    prepare_resume,
)
from app.events import ConfirmRequiredEvent, ErrorEvent, PermissionDeniedEvent, ToolEndEvent
from app.store import maintenance, users
from app.store.models import Maintenance
from tests.agent.scripted import call, final_from_tool


def _conf(events: list[Any]) -> ConfirmRequiredEvent:
    return next(e for e in events if isinstance(e, ConfirmRequiredEvent))


async def _pending_deploy(harness: Any, target: str = "prod", **kw: Any) -> tuple[Any, list[Any]]:
    """alice (admin) asks for a deploy of dashboard 42 to ``target``: its card, the log."""
    log: list[Any] = []
    deploy = call("deploy_dashboard", dashboard_id="42", target_env=target)
    harness.use_proposal(deploy, log, final_from_tool, **kw)
    return _conf(await harness.turn(f"deploy 42 to {target}")), log


def _re_role(harness: Any, username: str, role: str) -> None:
    """What ``main.py users role`` does (another process: this app's cache is not told)."""
    with harness.parts.db.session() as s:
        users.set_role(s, username=username, role=role)


async def test_a_demoted_admin_who_signs_in_again_cannot_confirm_the_old_card(
    harness: Any,
) -> None:
    conf, log = await _pending_deploy(harness)
    _re_role(harness, "alice", "analyst")
    events = await harness.answer(conf.confirmation_id, "confirm", role="analyst")  # new token
    denied = next(e for e in events if isinstance(e, PermissionDeniedEvent))
    assert denied.tool_name == "deploy_dashboard" and denied.required_role == "admin"
    assert log == []  # nothing ran
    assert not [e for e in events if isinstance(e, ToolEndEvent) and e.status == "completed"]
    [row] = harness.audit_rows(kind="permission_denied", conv_id=harness.conv_id)
    assert (row["user"], row["role"], row["tool"]) == ("alice", "analyst", "deploy_dashboard")
    assert not harness.audit_rows(kind="executed", conv_id=harness.conv_id)


async def test_the_old_admin_token_is_refused_at_once_not_after_the_cache_time(
    harness: Any,
) -> None:
    conf, log = await _pending_deploy(harness)
    old_token = harness.token("alice", "admin")
    assert harness.core.auth.verify(old_token).role == "admin"  # the cache now says admin
    _re_role(harness, "alice", "analyst")
    answer = ResumeInput(
        conv_id=harness.conv_id, confirmation_id=conf.confirmation_id, decision="confirm"
    )
    with pytest.raises(RequestRefused) as caught:
        await prepare_resume(
            answer, core=harness.core, caller=Caller(token=old_token, channel="page")
        )
    assert caught.value.status == 401 and caught.value.reason == "role changed"
    assert log == []
    refusals = harness.audit_rows(kind="auth_failed", conv_id=harness.conv_id)
    assert [r["reason"] for r in refusals] == ["role changed"]


async def test_a_maintenance_window_that_started_after_the_card_stops_the_confirmed_call(
    harness: Any,
) -> None:
    conf, log = await _pending_deploy(harness)
    with harness.parts.db.session() as s:
        maintenance.start(s, Maintenance(env_id="prod", started_by="ops", reason="upgrade"))
    try:
        events = await harness.answer(conf.confirmation_id, "confirm")  # not edited
    finally:
        with harness.parts.db.session() as s:
            maintenance.end(s, env_id="prod", ended_by="ops")
    err = next(e for e in events if isinstance(e, ErrorEvent))
    assert err.code == "maintenance" and log == []
    assert harness.audit_rows(kind="maintenance_refused", conv_id=harness.conv_id)


async def test_an_environment_whose_tier_changed_since_the_card_is_asked_again(
    harness: Any,
) -> None:
    envs = SimpleNamespace(tiers={"qa": "staging"}, default=None)  # the operator's table
    conf, log = await _pending_deploy(harness, "qa", envs=envs)
    assert conf.metadata.card_state == "write_staging"
    envs.tiers["qa"] = "prod"  # environments.toml now says qa is prod
    events = await harness.answer(conf.confirmation_id, "confirm")
    again = _conf(events)
    assert again.confirmation_id != conf.confirmation_id
    assert again.metadata.card_state == "write_prod" and log == []
    with pytest.raises(ConfirmationRefused):  # the old id is spent
        await harness.answer(conf.confirmation_id, "confirm")


async def test_an_unchanged_answer_still_runs_once_without_a_second_preflight(
    harness: Any,
) -> None:
    seen: list[str] = []

    async def preflight(name: str, args: Any, deps: Any) -> None:
        seen.append(name)

    conf, log = await _pending_deploy(harness, preflight=preflight)
    events = await harness.answer(conf.confirmation_id, "confirm")
    assert [e.status for e in events if isinstance(e, ToolEndEvent)] == ["completed"]
    assert len(log) == 1 and seen == ["deploy_dashboard"]  # the card's preflight only
