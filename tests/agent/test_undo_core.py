"""Undo through the agent core, without Superset: maintenance windows (their inverse is
the other call), the card that says whether a call can be undone (before the person
confirms), and the undo's own life (single use, expiry, the conversation's history).

The maintenance tools write only the product's own rows, so the product's real tools run
here on a registry whose environments are never called."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from app.agent.offers import undo as undo_offer
from app.agent.undo import ARTIFACT_KEY
from app.auth import Principal
from app.events import ConfirmRequiredEvent, ErrorEvent, ToolEndEvent
from app.pages.audit import fetch_rows
from app.policy import DEFAULT_POLICY
from app.store import maintenance as maintenance_store
from app.store import undo as undo_store
from app.store.models import utcnow
from app.superset.environments import Environment
from app.superset.registry import EnvironmentRegistry
from tests.agent.scripted import recording_tools

PROD = EnvironmentRegistry([Environment(id="prod", url="http://prod.invalid", tier="prod")])


def one(events: list[Any], kind: type) -> Any:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, [type(e).__name__ for e in events]
    return found[0]


@pytest.fixture
def agent(harness: Any) -> Any:
    harness.configure(dangerous_countdown_s=0)
    harness.serve(PROD)
    harness.use(real=True)
    harness.conv_id = "undo-core"
    return harness


async def confirmed(harness: Any, tool: str, args: dict[str, Any], **who: Any) -> list[Any]:
    card = one(await harness.call(tool, args, **who), ConfirmRequiredEvent)
    return await harness.answer(card.confirmation_id, **who)


def undo_args(events: list[Any]) -> dict[str, Any]:
    end = one(events, ToolEndEvent)
    assert end.status == "completed", end.error
    [offer] = end.offers
    assert offer.kind == "undo" and offer.call is not None
    assert offer.call.tool_name == "undo_change"
    return dict(offer.call.args)


def active(harness: Any) -> Any:
    with harness.parts.db.session() as s:
        return maintenance_store.active_for(s, env_id="prod")


async def test_a_started_window_undone_is_ended_even_though_prod_is_in_maintenance(
    agent: Any,
) -> None:
    args = undo_args(
        await confirmed(agent, "start_maintenance", {"env_id": "prod", "reason": "upgrade"})
    )
    assert active(agent) is not None
    # an undo is a write on prod, and prod is in maintenance: this one ends the window
    card = one(await agent.call("undo_change", args), ConfirmRequiredEvent)
    assert card.metadata.description == "Undo: Start maintenance on prod: upgrade"
    assert card.metadata.env_id == "prod" and card.metadata.dangerous
    end = one(await agent.answer(card.confirmation_id), ToolEndEvent)
    assert end.status == "completed", end.error
    assert active(agent) is None


async def test_an_ended_window_undone_is_opened_again_until_its_old_end(agent: Any) -> None:
    await confirmed(
        agent, "start_maintenance", {"env_id": "prod", "reason": "upgrade", "duration_minutes": 60}
    )
    ends_at = active(agent).ends_at
    args = undo_args(await confirmed(agent, "end_maintenance", {"env_id": "prod"}))
    end = one(await confirmed(agent, "undo_change", args), ToolEndEvent)
    assert end.status == "completed", end.error
    window = active(agent)
    assert window.reason == "upgrade" and window.ends_at == ends_at


async def test_a_window_ended_by_someone_since_refuses_the_undo_with_changed_since(
    agent: Any,
) -> None:
    args = undo_args(await confirmed(agent, "start_maintenance", {"env_id": "prod"}))
    with agent.parts.db.session() as s:
        maintenance_store.end(s, env_id="prod", ended_by="bob")
    refused = one(await agent.call("undo_change", args), ErrorEvent)
    assert refused.code == "changed_since" and refused.refusal is not None
    assert refused.refusal.errors == ["the maintenance window on prod has already ended"]
    assert agent.audit_rows(kind="undone") == []


async def test_an_undo_runs_once_and_the_change_then_says_so(agent: Any) -> None:
    args = undo_args(await confirmed(agent, "start_maintenance", {"env_id": "prod"}))
    done = await confirmed(agent, "undo_change", args)
    assert one(done, ToolEndEvent).status == "completed"
    again = one(await agent.call("undo_change", args), ErrorEvent)
    assert again.refusal is not None
    assert (again.refusal.code, again.refusal.reason) == ("not_undoable", "undone")
    [undone] = agent.audit_rows(kind="undone")
    assert undone["tool"] == "start_maintenance" and undone["user"] == "alice"
    assert undone["args"]["undo_id"] == args["undo_id"]
    undo_rows = [r for r in agent.audit_rows(kind="executed") if r["tool"] == "undo_change"]
    assert undo_rows[0]["args"] == args  # the undo's own row names the change it undid
    # the audit page: the change's own row says who undid it (no row was changed)
    shown = fetch_rows(agent.parts.db, {"tool": "start_maintenance"})
    [original] = [r for r in shown if r["kind"] == "executed"]
    assert original["id"] == undone["args"]["undoes_audit_id"]
    assert original["reason"].startswith("undone by alice (")
    # reopened from the drawer: the change offers no undo any more
    view = await agent.core.conversation(Principal("alice", "admin"), agent.conv_id)
    [row] = [r for r in view.tool_calls if r["tool_name"] == "start_maintenance"]
    assert row["offers"] == []


async def test_an_edit_made_while_the_undos_card_waited_stops_it_when_confirmed(
    agent: Any,
) -> None:
    args = undo_args(await confirmed(agent, "start_maintenance", {"env_id": "prod"}))
    card = one(await agent.call("undo_change", args), ConfirmRequiredEvent)  # nothing changed
    with agent.parts.db.session() as s:
        maintenance_store.end(s, env_id="prod", ended_by="bob")  # while the card waits
    end = one(await agent.answer(card.confirmation_id), ToolEndEvent)
    assert end.status == "failed" and "changed since" in (end.error or "")
    assert agent.audit_rows(kind="undone") == []
    with agent.parts.db.session() as s:  # never claimed: nothing was undone
        assert undo_store.why_not(undo_store.get(s, undo_id=args["undo_id"])) is None


@pytest.mark.parametrize(
    ("page", "leaves_it"),
    [
        (None, False),  # no page context: the call is made as it is
        ("dashboard", True),  # the undo fits no page's context: the page leaves it first
    ],
)
def test_the_offer_leaves_a_page_context_that_filters_the_undo_out(
    page: str | None, leaves_it: bool
) -> None:
    offer = undo_offer(DEFAULT_POLICY, "f" * 32, "Deploy dashboard 1 to prod", "2026", page, "ru")
    assert offer.clear_context is leaves_it
    assert (offer.label, offer.request) == ("Отменить", "Отменить: Deploy dashboard 1 to prod")


async def test_an_expired_undo_is_refused_and_no_longer_offered(agent: Any) -> None:
    args = undo_args(await confirmed(agent, "start_maintenance", {"env_id": "prod"}))
    view = await agent.core.conversation(Principal("alice", "admin"), agent.conv_id)
    [row] = [r for r in view.tool_calls if r["tool_name"] == "start_maintenance"]
    assert [o["kind"] for o in row["offers"]] == ["undo"]  # reopened: still offered
    with agent.parts.db.session() as s:
        record = undo_store.get(s, undo_id=args["undo_id"])
        record.expires_at = utcnow() - timedelta(seconds=1)
    refused = one(await agent.call("undo_change", args), ErrorEvent)
    assert refused.refusal is not None and refused.refusal.reason == "expired"
    view = await agent.core.conversation(Principal("alice", "admin"), agent.conv_id)
    [row] = [r for r in view.tool_calls if r["tool_name"] == "start_maintenance"]
    assert row["offers"] == []


async def test_the_offer_is_kept_with_the_result_not_the_answer(agent: Any) -> None:
    """The undo offer rides on the tool's result (card button), never as the answer's
    choices, and its checkpointed artifact keeps it for a reopened conversation."""
    await confirmed(agent, "start_maintenance", {"env_id": "prod"})
    graph = await agent.core.graph()
    state = await graph.aget_state({"configurable": {"thread_id": agent.conv_id}})
    [result] = [
        m for m in state.values["messages"] if getattr(m, "name", "") == "start_maintenance"
    ]
    assert [o["kind"] for o in result.artifact[ARTIFACT_KEY]] == ["undo"]
    assert "offers" not in result.artifact
    assert '"undo_id"' in result.content  # a model can say "undo that" too


# ---- the card says it, before the person confirms ----------------------------------------
@pytest.mark.parametrize(
    ("tool", "args", "undo", "days"),
    [
        # a write that can be undone: for the retention period (the setting: 3 days here)
        ("deploy_dashboard", {"dashboard_id": "1", "target_env": "prod"}, "undoable", 3),
        ("delete_dashboard", {"dashboard_id": "1", "env_id": "prod"}, "undoable", 3),
        ("start_maintenance", {"env_id": "prod"}, "undoable", 3),
        # SQL DML writes rows no export holds: it cannot be undone, and the card says so
        (
            "superset_execute_sql",
            {"database": "1", "sql": "delete from t", "env_id": "prod"},
            "final",
            0,
        ),
        ("run_backup", {"env_id": "prod"}, "final", 0),  # a backup stays taken
    ],
)
async def test_the_card_says_whether_the_call_can_be_undone(
    harness: Any, tool: str, args: dict[str, Any], undo: str, days: int
) -> None:
    harness.configure(undo_retention_days=3)
    harness.serve(PROD)
    harness.use(tools=recording_tools([]))
    card = one(await harness.call(tool, args, conv_id="card"), ConfirmRequiredEvent)
    assert (card.metadata.undo, card.metadata.undo_days) == (undo, days)


async def test_a_read_has_no_undo_line(harness: Any) -> None:
    harness.serve(PROD)
    harness.use(tools=recording_tools([]))
    events = await harness.call(
        "superset_execute_sql",
        {"database": "1", "sql": "select 1", "env_id": "prod"},
        conv_id="read",
    )
    end = one(events, ToolEndEvent)
    assert end.offers == [] and not [e for e in events if isinstance(e, ConfirmRequiredEvent)]
