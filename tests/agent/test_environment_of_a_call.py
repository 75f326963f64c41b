"""The environment of a call is resolved once, by the one resolver: the card names it,
the maintenance gate checks it and the tool runs on it. A configured tier wins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.policy import EnvTable
from app.store import backups as backup_store
from app.store import maintenance
from app.store.models import Backup, Maintenance
from tests.agent.harness import first, types_of
from tests.agent.scripted import call, final_from_tool

# test-main is configured prod although its id reads as staging; dev is the default
ENVS = EnvTable.configured({"test-main": "prod", "prod": "prod", "dev": "dev"})


def recording(log: list[dict[str, Any]], *names: str) -> dict[str, Any]:
    """Tool implementations that record where they ran."""

    def make(name: str) -> Any:
        async def tool(args: Any, deps: Any) -> Any:
            log.append({"tool": name, "env_id": deps.env_id, "selected": deps.selected_env})
            return {"ok": True}

        return tool

    return {name: make(name) for name in names}


@pytest.mark.parametrize(
    ("proposed", "card_state", "risk_level"),
    [
        # a write on test-main is a PRODUCTION write, not a staging one
        (call("run_backup", env_id="test-main"), "write_prod", "guarded"),
        # SQL that changes data on test-main: prod card too
        (call("superset_execute_sql", sql="UPDATE t SET a = 1", env_id="test-main"),
         "write_prod", "guarded"),
        # a deploy whose target is test-main
        (call("deploy_dashboard", dashboard_id="42", target_env="test-main"),
         "write_prod", "guarded"),
        # a delete stays dangerous, on prod
        (call("delete_dashboard", dashboard_id="7", env_id="test-main"), "dangerous", "dangerous"),
    ],
)  # fmt: skip
async def test_configured_prod_tier_gets_the_prod_card(
    harness: Any, proposed: Any, card_state: str, risk_level: str
) -> None:
    log: list[dict[str, Any]] = []
    names = ("run_backup", "superset_execute_sql", "deploy_dashboard", "delete_dashboard")
    harness.use(proposed, final_from_tool, tools=recording(log, *names), envs=ENVS)
    events = await harness.run("do it on test-main", env_id="dev")
    meta = first(events, "confirm_required")["metadata"]
    assert (meta["env_id"], meta["env_context"]) == ("test-main", "prod")
    assert (meta["card_state"], meta["risk_level"]) == (card_state, risk_level)
    assert log == []  # nothing runs before a person confirms


async def test_with_nothing_selected_the_card_names_the_env_the_tool_runs_on(
    harness: Any,
) -> None:
    log: list[dict[str, Any]] = []
    harness.use(call("run_backup"), final_from_tool, tools=recording(log, "run_backup"), envs=ENVS)
    conf = first(await harness.run("back up everything", env_id=None), "confirm_required")
    # not "prod on the card, dev in reality": the registry default (first dev) on both
    assert (conf["metadata"]["env_id"], conf["metadata"]["card_state"]) == ("dev", "write_dev")
    assert conf["metadata"]["description"] == "Back up all dashboards in dev"
    events = await harness.resume(conf["confirmation_id"], "confirm")
    assert first(events, "tool_end")["status"] == "completed"
    assert log == [{"tool": "run_backup", "env_id": "dev", "selected": "dev"}]


@pytest.mark.parametrize(
    ("selected", "uicontext", "ran_on"),
    [
        (None, None, "dev"),  # nothing anywhere: the registry default
        ("test-main", None, "test-main"),  # the submitted env
        (None, '{"objectType": "dataset", "envId": "prod"}', "prod"),  # the page's envId
    ],
)
async def test_a_read_tool_runs_on_the_resolved_env(
    harness: Any, selected: str | None, uicontext: str | None, ran_on: str
) -> None:
    log: list[dict[str, Any]] = []
    harness.use(
        call("search_dashboards", query="sales"),
        final_from_tool,
        tools=recording(log, "search_dashboards"),
        envs=ENVS,
    )
    events = await harness.run("find sales", env_id=selected, uicontext=uicontext)
    assert first(events, "tool_end")["status"] == "completed"
    assert log == [{"tool": "search_dashboards", "env_id": ran_on, "selected": ran_on}]


async def test_a_deploy_runs_on_its_target_and_takes_the_page_env_as_source(
    harness: Any,
) -> None:
    log: list[dict[str, Any]] = []
    harness.use(
        call("deploy_dashboard", dashboard_id="42", target_env="prod"),
        final_from_tool,
        tools=recording(log, "deploy_dashboard"),
        envs=ENVS,
    )
    conf = first(await harness.run("deploy 42 to prod", env_id=None), "confirm_required")
    assert conf["metadata"]["env_id"] == "prod"
    await harness.resume(conf["confirmation_id"], "confirm")
    assert log == [{"tool": "deploy_dashboard", "env_id": "prod", "selected": "dev"}]


def _backup_on(harness: Any, env_id: str, tmp_path: Path) -> str:
    with harness.parts.db.session() as s:
        backup = Backup(
            env_id=env_id, path=str(tmp_path / "b.zip"), created_by="ops", size_bytes=1,
            note="all dashboards",
        )  # fmt: skip
        row = backup_store.add_backup(s, backup)
        return str(row.id)


async def test_restore_without_env_acts_on_the_backups_env(harness: Any, tmp_path: Path) -> None:
    backup_id = _backup_on(harness, "prod", tmp_path)
    log: list[dict[str, Any]] = []
    harness.use(
        call("restore_backup", backup_id=backup_id),
        final_from_tool,
        tools=recording(log, "restore_backup"),
        envs=ENVS,
    )
    # the page has dev selected; the backup was taken on prod: the restore targets prod
    conf = first(await harness.run("restore that backup", env_id="dev"), "confirm_required")
    meta = conf["metadata"]
    assert (meta["env_id"], meta["env_context"], meta["card_state"]) == (
        "prod",
        "prod",
        "dangerous",
    )
    assert meta["description"] == f"Restore backup {backup_id} into prod, overwriting dashboards"


async def test_restore_into_prod_during_maintenance_is_refused_without_a_card(
    harness: Any, tmp_path: Path
) -> None:
    backup_id = _backup_on(harness, "prod", tmp_path)
    log: list[dict[str, Any]] = []
    with harness.parts.db.session() as s:
        maintenance.start(s, Maintenance(env_id="prod", started_by="ops", reason="upgrade"))
    try:
        harness.use(
            call("restore_backup", backup_id=backup_id),
            final_from_tool,
            tools=recording(log, "restore_backup"),
            envs=ENVS,
        )
        events = await harness.run("restore that backup", env_id="dev")
        err = first(events, "error")
        assert err["code"] == "maintenance" and "'prod'" in err["message"]
        assert "confirm_required" not in types_of(events) and log == []
    finally:
        with harness.parts.db.session() as s:
            maintenance.end(s, env_id="prod", ended_by="ops")


async def test_restore_of_an_unknown_backup_is_refused_before_any_card(harness: Any) -> None:
    harness.use(call("restore_backup", backup_id="nope"), final_from_tool, tools={}, envs=ENVS)
    events = await harness.run("restore backup nope", env_id="dev")
    err = first(events, "error")
    assert err["code"] == "invalid_arguments" and "no backup 'nope'" in err["message"]
    assert "confirm_required" not in types_of(events)
