"""Edit before approving (docs/contract.md, decision 8), through the page's path of the
core: edited arguments pass policy again; the same risk and environment run under the
same confirmation; a higher risk or another environment gets a new confirmation and the
old id is spent; a forbidden edit is permission_denied; both argument sets are audited;
the run is bound to the edited arguments' hash."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from app.agent.core import ConfirmationRefused, RequestRefused
from app.auth import Principal
from app.events import (
    ConfirmRequiredEvent,
    ErrorEvent,
    MessageEvent,
    PermissionDeniedEvent,
    ToolEndEvent,
)
from app.planner import OfflinePlanner
from app.store import maintenance
from app.store.models import Confirmation, Maintenance
from app.tools.catalog import TOOL_CATALOG
from tests.agent.scripted import call, final_from_tool, recording_tools

ALICE = Principal(user_id="alice", role="admin")


def _conf(events: list[Any]) -> ConfirmRequiredEvent:
    return next(e for e in events if isinstance(e, ConfirmRequiredEvent))


def _ends(events: list[Any]) -> list[ToolEndEvent]:
    return [e for e in events if isinstance(e, ToolEndEvent)]


async def _deploy(
    harness: Any, target: str = "staging", **kw: Any
) -> tuple[ConfirmRequiredEvent, list[Any]]:
    """The card of a proposed deploy of dashboard 42 to ``target``, and the list the tools
    record their runs in (``kw``: ``harness.use()``'s)."""
    log: list[Any] = []
    deploy = call("deploy_dashboard", dashboard_id="42", target_env=target)
    harness.use_proposal(deploy, log, final_from_tool, **kw)
    return _conf(await harness.turn(f"deploy 42 to {target}")), log


# the edit most tests make: another dashboard, the same risk and environment
EDITED = {"dashboard_id": "43", "target_env": "staging"}


async def test_an_edit_that_keeps_risk_and_env_runs_under_the_same_confirmation(
    harness: Any,
) -> None:
    conf, log = await _deploy(harness)
    events = await harness.answer(conf.confirmation_id, "confirm", args=EDITED)
    assert not any(isinstance(e, ConfirmRequiredEvent) for e in events)
    assert [e.status for e in _ends(events)] == ["completed"]
    assert log == [("deploy_dashboard", {**EDITED, "source_env": None})]


async def test_an_edit_that_raises_the_risk_asks_a_new_dangerous_confirmation(
    harness: Any,
) -> None:
    log: list[Any] = []
    harness.use_proposal(
        call("superset_execute_sql", sql="UPDATE sales SET region = 'EU'", env_id="dev"), log
    )
    first = _conf(await harness.turn("fix the region"))
    assert first.metadata.risk_level == "guarded"
    events = await harness.answer(
        first.confirmation_id, "confirm", args={"sql": "DROP TABLE sales", "env_id": "dev"}
    )
    again = _conf(events)
    assert again.confirmation_id != first.confirmation_id
    assert again.metadata.risk_level == "dangerous" and again.countdown_s == 10
    assert again.metadata.tool_args["sql"] == "DROP TABLE sales"
    assert events[-1].state == "awaiting_confirmation" and log == []
    # the old id is spent: answering it again is refused
    with pytest.raises(ConfirmationRefused) as caught:
        await harness.answer(first.confirmation_id, "confirm")
    assert caught.value.code == "replayed"


async def test_an_edit_to_another_environment_asks_a_new_prod_confirmation(harness: Any) -> None:
    conf, log = await _deploy(harness)
    assert conf.metadata.card_state == "write_staging"
    events = await harness.answer(
        conf.confirmation_id, "confirm", args={"dashboard_id": "42", "target_env": "prod"}
    )
    again = _conf(events)
    assert again.confirmation_id != conf.confirmation_id
    assert (again.metadata.env_id, again.metadata.env_context) == ("prod", "prod")
    assert again.metadata.card_state == "write_prod" and log == []
    with pytest.raises(ConfirmationRefused):
        await harness.answer(conf.confirmation_id, "confirm")
    done = await harness.answer(again.confirmation_id, "confirm")
    assert [e.status for e in _ends(done)] == ["completed"]
    assert log == [
        ("deploy_dashboard", {"dashboard_id": "42", "source_env": None, "target_env": "prod"})
    ]


@pytest.mark.parametrize(
    "edited",
    [
        {"dashboard_id": "42", "source_env": "prod", "target_env": "staging"},  # from prod now
        {"dashboard_id": "42", "source_env": "dev", "target_env": "staging"},  # named at all
    ],
)
async def test_an_edit_of_the_source_environment_alone_asks_a_new_confirmation(
    harness: Any, edited: dict[str, Any]
) -> None:
    """Only the target used to be compared, so a deploy edited to copy from
    another environment ran under the old card."""
    conf, log = await _deploy(harness)
    events = await harness.answer(conf.confirmation_id, "confirm", args=edited)
    again = _conf(events)
    assert again.confirmation_id != conf.confirmation_id
    assert again.metadata.tool_args["source_env"] == edited["source_env"]
    assert events[-1].state == "awaiting_confirmation" and log == []
    with pytest.raises(ConfirmationRefused):  # the old id is spent
        await harness.answer(conf.confirmation_id, "confirm")
    done = await harness.answer(again.confirmation_id, "confirm")
    assert [e.status for e in _ends(done)] == ["completed"]
    assert log == [("deploy_dashboard", edited)]


async def test_an_edit_the_callers_role_may_not_run_is_permission_denied(harness: Any) -> None:
    conf, log = await _deploy(harness)  # asked while alice was an admin
    events = await harness.answer(
        conf.confirmation_id,
        "confirm",
        role="analyst",  # her token now says analyst
        args=EDITED,
    )
    denied = next(e for e in events if isinstance(e, PermissionDeniedEvent))
    assert denied.tool_name == "deploy_dashboard" and denied.required_role == "admin"
    assert not any(isinstance(e, ConfirmRequiredEvent) for e in events) and log == []
    assert harness.audit_rows(kind="permission_denied", conv_id=harness.conv_id)


async def test_the_audit_row_of_an_edited_confirmation_holds_both_argument_sets(
    harness: Any,
) -> None:
    conf, _ = await _deploy(harness)
    await harness.answer(conf.confirmation_id, "confirm", args=EDITED)
    [row] = harness.audit_rows(kind="confirmed", conv_id=harness.conv_id)
    assert row["args"] == {
        "shown": {"dashboard_id": "42", "source_env": None, "target_env": "staging"},
        "edited": EDITED,
    }
    executed = harness.audit_rows(kind="executed", conv_id=harness.conv_id)
    assert executed[0]["args"]["dashboard_id"] == "43"


async def test_an_edit_into_a_maintenance_window_is_refused(harness: Any) -> None:
    conf, log = await _deploy(harness)
    with harness.parts.db.session() as s:
        maintenance.start(s, Maintenance(env_id="prod", started_by="ops", reason="upgrade"))
    try:
        events = await harness.answer(
            conf.confirmation_id, "confirm", args={"dashboard_id": "42", "target_env": "prod"}
        )
    finally:
        with harness.parts.db.session() as s:
            maintenance.end(s, env_id="prod", ended_by="ops")
    err = next(e for e in events if isinstance(e, ErrorEvent))
    assert err.code == "maintenance" and log == []


async def test_the_preflight_runs_again_on_the_edited_arguments(harness: Any) -> None:
    seen: list[Any] = []

    async def preflight(name: str, args: Any, deps: Any) -> dict[str, Any]:
        seen.append(args.model_dump())
        return {"errors": ["no such dashboard"]} if args.dashboard_id == "404" else {}

    conf, log = await _deploy(harness, preflight=preflight)
    events = await harness.answer(
        conf.confirmation_id, "confirm", args={"dashboard_id": "404", "target_env": "staging"}
    )
    err = next(e for e in events if isinstance(e, ErrorEvent))
    assert err.code == "preflight_failed" and log == []
    assert [s["dashboard_id"] for s in seen] == ["42", "404"]


async def test_an_edit_the_args_model_rejects_does_not_spend_the_confirmation(
    harness: Any,
) -> None:
    conf, _ = await _deploy(harness)
    with pytest.raises(RequestRefused) as caught:
        await harness.answer(
            conf.confirmation_id, "confirm", args={"dashboard_id": "", "target_env": "staging"}
        )
    assert caught.value.status == 422 and caught.value.error == "invalid_args"
    assert "dashboard_id" in caught.value.reason
    events = await harness.answer(conf.confirmation_id, "confirm")  # still answerable
    assert [e.status for e in _ends(events)] == ["completed"]


async def test_a_run_with_arguments_other_than_the_confirmed_edit_runs_nothing(
    harness: Any,
) -> None:
    conf, log = await _deploy(harness)
    req = await harness.resume_request(conf.confirmation_id, args=EDITED)
    with harness.parts.db.session() as s:
        assert s.get(Confirmation, conf.confirmation_id).edited_args_hash
    forged = dataclasses.replace(req, args={"dashboard_id": "666", "target_env": "staging"})
    events = [e async for e in harness.core.resume(forged)]
    err = next(e for e in events if isinstance(e, ErrorEvent))
    assert err.code == "confirmation_mismatch" and log == []


async def test_the_conversation_and_the_model_read_the_arguments_as_edited(harness: Any) -> None:
    conf, _ = await _deploy(harness)
    await harness.answer(conf.confirmation_id, "confirm", args=EDITED)
    view = await harness.core.conversation(ALICE, harness.conv_id)
    assert view.tool_calls[0]["tool_args"] == EDITED and view.tool_calls[0]["status"] == "completed"
    proposed = next(m for m in harness.recorder.seen[-1] if getattr(m, "tool_calls", None))
    assert proposed.tool_calls[0]["args"] == EDITED


async def test_the_planner_names_the_edited_call_when_its_new_card_is_cancelled(
    harness: Any,
) -> None:
    harness.use(tools=recording_tools([]), model=OfflinePlanner(catalog=TOOL_CATALOG))
    conf = _conf(await harness.turn("deploy dashboard 42 from dev to staging"))
    again = _conf(
        await harness.answer(
            conf.confirmation_id,
            "confirm",
            args={"dashboard_id": "42", "source_env": "dev", "target_env": "prod"},
        )
    )
    events = await harness.answer(again.confirmation_id, "deny", reason="only looking")
    answer = next(e for e in events if isinstance(e, MessageEvent)).text
    assert answer == "Cancelled — not deploying dashboard 42 from dev to prod: only looking."
    assert not any(isinstance(e, ConfirmRequiredEvent) for e in events)
