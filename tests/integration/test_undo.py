"""Undo on the real Superset sandbox, through the whole agent (the guard, the cards, the
tool node, the audit): a deploy to prod undone leaves prod as it was (normalised exports
compared object by object), a delete undone brings the dashboard back with its charts, a
new dataset undone is gone, an object someone edited after the agent's write refuses the
undo (``changed_since``), an analyst's undo is refused, and git's inverses (a branch
deleted, a commit reverted by a new commit) run on a real repository.

Every test puts prod back as it was (``prod_kept``: its export re-imported, charts
included, and whatever a test created deleted)."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from app.events import (
    ConfirmRequiredEvent,
    ErrorEvent,
    PermissionDeniedEvent,
    ToolEndEvent,
)
from app.pages.audit import fetch_rows
from app.superset.bundle import chart_bundle, dump_yaml, load_bundle, read_bundle, write_bundle
from app.superset.migration import list_all
from app.superset.registry import EnvironmentRegistry

pytestmark = pytest.mark.superset
KINDS = ("dashboard", "chart", "dataset")


@pytest.fixture
async def prod_kept(registry: EnvironmentRegistry) -> AsyncIterator[None]:
    """Prod as it was before the test: every dashboard (and its charts) re-imported with
    overwrite, and every dashboard, chart and dataset the test added deleted."""
    client = registry.client("prod")
    before = {k: {r["uuid"] for r in await list_all(client, k, ["id", "uuid"])} for k in KINDS}
    ids = [r["id"] for r in await list_all(client, "dashboard", ["id"])]
    snapshot = await client.export_dashboards(ids)
    yield
    charts = write_bundle(chart_bundle(read_bundle(snapshot)))
    await client.request(
        "POST", "/api/v1/chart/import/",
        files={"formData": ("charts.zip", charts, "application/zip")}, data={"overwrite": "true"},
    )  # fmt: skip
    await client.import_dashboards(snapshot, overwrite=True)
    for kind in KINDS:
        for row in await list_all(client, kind, ["id", "uuid"]):
            if row["uuid"] not in before[kind]:
                await client.delete(f"/api/v1/{kind}/{row['id']}")


async def objects(client: Any, slug: str) -> dict[str, str]:
    """A dashboard's normalised export, object by object: uuid → its YAML (keys sorted;
    the export's metadata, which holds its time, left out)."""
    dash = await client.get_dashboard(slug)
    bundle = await load_bundle(await client.export_dashboards([dash["id"]]))
    return {
        str(doc["uuid"]): dump_yaml(doc)
        for path, doc in bundle.files.items()
        if path != "metadata.yaml" and isinstance(doc, dict)
    }


async def inventory(client: Any) -> dict[str, set[str]]:
    return {k: {r["uuid"] for r in await list_all(client, k, ["id", "uuid"])} for k in KINDS}


def one(events: list[Any], kind: type) -> Any:
    found = [e for e in events if isinstance(e, kind)]
    assert len(found) == 1, [type(e).__name__ for e in events]
    return found[0]


async def confirmed(harness: Any, tool: str, args: dict[str, Any], **who: Any) -> list[Any]:
    """A door's direct call of ``tool`` in the harness's conversation, its card
    confirmed: the events of the answer."""
    card = one(await harness.call(tool, args, **who), ConfirmRequiredEvent)
    return await harness.answer(card.confirmation_id, **who)


def undo_offer(events: list[Any]) -> Any:
    end = one(events, ToolEndEvent)
    assert end.status == "completed", end.error
    [offer] = [o for o in end.offers if o.kind == "undo"]
    assert offer.call is not None and offer.call.tool_name == "undo_change"
    assert end.data["undo_id"] == offer.call.args["undo_id"]
    return offer


@pytest.fixture
def agent(harness: Any, registry: EnvironmentRegistry) -> Any:
    """The harness with the product's real tools on the sandbox (no countdown to wait)."""
    harness.configure(dangerous_countdown_s=0)
    harness.serve(registry)
    harness.use(real=True)
    harness.conv_id = f"undo-{uuid.uuid4().hex[:8]}"
    return harness


async def test_deploy_to_prod_then_undo_leaves_prod_byte_for_byte_as_it_was(
    agent: Any, registry: EnvironmentRegistry, prod_kept: None
) -> None:
    prod = registry.client("prod")
    dash = await prod.get_dashboard("sales-overview")
    # prod's copy differs from dev's: the deploy overwrites the dashboard and a chart
    await prod.put_json(f"/api/v1/dashboard/{dash['id']}", {"css": ".prod-only { color: red }"})
    chart = (await prod.dashboard_charts(dash["id"]))[0]
    await prod.put_json(f"/api/v1/chart/{chart['id']}", {"slice_name": "Renamed on prod"})
    before, held = await objects(prod, "sales-overview"), await inventory(prod)

    deployed = await confirmed(
        agent, "deploy_dashboard", {"dashboard_id": "sales-overview", "target_env": "prod"}
    )
    offer = undo_offer(deployed)
    assert await objects(prod, "sales-overview") != before  # the deploy changed prod

    undo = one(await agent.call("undo_change", offer.call.args), ConfirmRequiredEvent)
    meta = undo.metadata
    assert meta.dangerous and meta.env_id == "prod" and meta.env_context == "prod"
    assert meta.description.startswith("Undo: Deploy dashboard sales-overview")
    assert meta.undo == "final"  # an undo itself cannot be undone, and its card says so
    rows = {(r["name"], r["action"]) for r in meta.details["dashboards"] + meta.details["charts"]}
    assert ("Sales Overview", "restore") in rows
    done = await agent.answer(undo.confirmation_id)
    end = one(done, ToolEndEvent)
    assert end.status == "completed", end.error
    assert end.offers == []  # nothing to undo an undo with
    assert end.data["restored_dashboards"] == "Sales Overview"

    assert await objects(prod, "sales-overview") == before  # byte for byte, every object
    assert await inventory(prod) == held  # and nothing the deploy made is left
    undone = agent.audit_rows(kind="undone")
    assert len(undone) == 1 and undone[0]["tool"] == "deploy_dashboard"
    executed = [r for r in agent.audit_rows(kind="executed") if r["tool"] == "deploy_dashboard"]
    assert undone[0]["args"]["undoes_audit_id"] == str(executed[0]["id"])
    shown = fetch_rows(agent.parts.db, {"tool": "deploy_dashboard"})
    [original] = [r for r in shown if r["kind"] == "executed"]
    assert "undone by alice" in original["reason"]

    again = one(await agent.call("undo_change", offer.call.args), ErrorEvent)
    assert again.refusal is not None and again.refusal.code == "not_undoable"
    assert again.refusal.reason == "undone"


async def test_a_new_dashboard_deployed_then_undone_is_gone_with_its_charts_and_datasets(
    agent: Any, registry: EnvironmentRegistry, prod_kept: None
) -> None:
    prod = registry.client("prod")
    held = await inventory(prod)
    offer = undo_offer(
        await confirmed(
            agent,
            "execute_migration",
            {"dashboard_ids": ["marketing-funnel"], "target_env": "prod"},
        )
    )
    assert (await inventory(prod))["chart"] > held["chart"]
    end = one(await confirmed(agent, "undo_change", offer.call.args), ToolEndEvent)
    assert end.status == "completed", end.error
    assert end.data["deleted_dashboards"] == 1 and end.data["deleted_charts"] == 2
    assert await inventory(prod) == held


async def test_delete_then_undo_brings_the_dashboard_back_with_its_charts(
    agent: Any, registry: EnvironmentRegistry, prod_kept: None
) -> None:
    prod = registry.client("prod")
    before = await objects(prod, "customer-health")
    deleted = await confirmed(
        agent, "delete_dashboard", {"dashboard_id": "customer-health", "env_id": "prod"}
    )
    offer = undo_offer(deleted)
    assert "customer-health" not in {
        r["slug"] for r in await list_all(prod, "dashboard", ["id", "slug"])
    }
    card = one(await agent.call("undo_change", offer.call.args), ConfirmRequiredEvent)
    assert card.metadata.description.startswith("Undo: Delete dashboard customer-health")
    end = one(await agent.answer(card.confirmation_id), ToolEndEvent)
    assert end.status == "completed", end.error
    back = await prod.get_dashboard("customer-health")
    assert len(await prod.dashboard_charts(back["id"])) == 2
    assert await objects(prod, "customer-health") == before  # its charts, as they were


async def test_a_new_dataset_undone_is_deleted(agent: Any, registry: EnvironmentRegistry) -> None:
    dev = registry.client("dev")
    name = f"undo_{uuid.uuid4().hex[:8]}"
    args = {"database": "Sales", "table_name": name, "sql": "select 1 as x", "env_id": "dev"}
    offer = undo_offer(await confirmed(agent, "superset_create_dataset", args))
    assert await dev.find_datasets(name)
    end = one(await confirmed(agent, "undo_change", offer.call.args), ToolEndEvent)
    assert end.status == "completed", end.error
    assert await dev.find_datasets(name) == []


async def test_undo_after_someone_edited_the_object_refuses_with_changed_since(
    agent: Any, registry: EnvironmentRegistry, prod_kept: None
) -> None:
    prod = registry.client("prod")
    offer = undo_offer(
        await confirmed(
            agent, "deploy_dashboard", {"dashboard_id": "marketing-funnel", "target_env": "prod"}
        )
    )
    made = await prod.get_dashboard("marketing-funnel")
    await prod.put_json(f"/api/v1/dashboard/{made['id']}", {"dashboard_title": "Edited by Bob"})
    refused = one(await agent.call("undo_change", offer.call.args), ErrorEvent)
    assert refused.code == "changed_since" and refused.refusal is not None
    assert refused.refusal.errors == ["dashboard “Marketing Funnel” was changed since"]
    assert (await prod.get_dashboard(made["id"]))["dashboard_title"] == "Edited by Bob"
    assert agent.audit_rows(kind="undone") == []


@pytest.mark.parametrize(
    "opened",
    [
        False,  # undo_change is admin-only (a delete no table opens to other roles)
        True,  # a policy file opens undo_change to analysts: still not what they could not do
    ],
)
async def test_an_undo_from_an_analyst_is_refused(
    agent: Any, registry: EnvironmentRegistry, prod_kept: None, tmp_path: Path, opened: bool
) -> None:
    offer = undo_offer(
        await confirmed(
            agent, "deploy_dashboard", {"dashboard_id": "marketing-funnel", "target_env": "prod"}
        )
    )
    if opened:
        policy = tmp_path / "policy.toml"
        policy.write_text('[tools.undo_change]\nroles = ["admin", "analyst"]\n')
        agent.configure(policy_file=policy)
        agent.serve(registry)
        agent.use(real=True)
    bob = {"user": "bob", "role": "analyst", "conv_id": "bob-conv"}
    refused = await agent.call("undo_change", offer.call.args, **bob)
    denied = one(refused, PermissionDeniedEvent)
    assert denied.required_role == "admin" and denied.refusal is not None
    assert denied.refusal.code == "permission_denied"
    # opened: the guard let the tool through; the undo's own check refused the change
    assert ("undoing deploy_dashboard requires the admin role" in denied.message) == opened
    assert not [e for e in refused if isinstance(e, ConfirmRequiredEvent)]
    assert "marketing-funnel" in {
        r["slug"] for r in await list_all(registry.client("prod"), "dashboard", ["id", "slug"])
    }
    assert agent.audit_rows(kind="undone") == []


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


async def test_git_branch_undone_is_deleted_and_a_commit_undone_is_reverted(
    agent: Any, tmp_path: Path
) -> None:
    branch = undo_offer(
        await confirmed(agent, "create_branch", {"branch": "review/undo", "dashboard_id": "1"})
    )
    commit = undo_offer(await confirmed(agent, "commit_changes", {"message": "Sales from dev"}))
    repo = agent.parts.settings.data_dir.resolve() / "git"
    committed = _git(repo, "rev-parse", "HEAD")
    # the branch has a commit now: deleting it would lose work, so its undo is refused
    refused = one(await agent.call("undo_change", branch.call.args), ErrorEvent)
    assert refused.code == "changed_since"
    end = one(await confirmed(agent, "undo_change", commit.call.args), ToolEndEvent)
    assert end.status == "completed", end.error
    log = _git(repo, "log", "--format=%H %an %s", "-3").splitlines()
    assert log[1].startswith(committed)  # history kept: a new commit on top of it
    assert log[0].split()[1] == "alice" and "Revert" in log[0]
    assert _git(repo, "diff", "--name-only", f"{committed}~1", "HEAD") == ""  # as before it
