"""The write-side ops tools against the real Superset sandbox: migration, deploy, backup →
delete → restore, git commits of real exports, maintenance rows.

Every test that changes prod puts it back (new dashboards, charts and datasets are
deleted afterwards), so the other integration tests still see the seeded sandbox."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from app.errors import SupersetNotFoundError, ToolError
from app.parts import Parts
from app.store import maintenance as maintenance_store
from app.store import tasks as task_store
from app.superset.migration import list_all, preflight_migration
from app.superset.registry import EnvironmentRegistry
from app.tools.backup.store import backup_dir
from app.tools.kit import ToolDeps
from tests.support import run_tool

pytestmark = pytest.mark.superset


@pytest.fixture
async def prod_restored(registry: EnvironmentRegistry) -> AsyncIterator[None]:
    """Put prod back as it was: delete the dashboards, charts and datasets a test added
    (by uuid: a restored dashboard comes back under a new id but is the same object) and
    re-import any dashboard a failed test left deleted."""
    client = registry.client("prod")
    kinds = ("dashboard", "chart", "dataset")
    before = {k: {r["uuid"] for r in await list_all(client, k, ["id", "uuid"])} for k in kinds}
    dashboards = await list_all(client, "dashboard", ["id"])
    snapshot = await client.export_dashboards([r["id"] for r in dashboards])
    yield
    now = {r["uuid"] for r in await list_all(client, "dashboard", ["id", "uuid"])}
    if before["dashboard"] - now:
        await client.import_dashboards(snapshot, overwrite=True)
    for kind in kinds:
        for row in await list_all(client, kind, ["id", "uuid"]):
            if row["uuid"] not in before[kind]:
                await client.delete(f"/api/v1/{kind}/{row['id']}")


Deps = Callable[..., ToolDeps]


@pytest.fixture
def deps(registry: EnvironmentRegistry, parts: Parts) -> Deps:
    """``deps(env_id="dev", **kw)``: a call's dependencies on the sandbox's environments
    and the test's parts (its data dir under ``tmp_path``, database, task runner)."""

    def make(env_id: str = "dev", **kw: Any) -> ToolDeps:
        return ToolDeps(
            parts.settings, "alice", "admin", "c1", env_id, registry,
            db=parts.db, tasks=parts.tasks, **kw,
        )  # fmt: skip

    return make


async def run(name: str, d: ToolDeps, **args: Any) -> Any:
    return await run_tool(name, d, **args)


async def prod_titles(registry: EnvironmentRegistry) -> list[str]:
    rows = await list_all(registry.client("prod"), "dashboard", ["id", "dashboard_title"])
    return sorted(r["dashboard_title"] for r in rows)


async def test_migration_dev_to_prod_makes_marketing_funnel_appear_on_prod(
    registry: EnvironmentRegistry, prod_restored: None, tmp_path: Path, deps: Deps, parts: Parts
) -> None:
    assert "Marketing Funnel" not in await prod_titles(registry)
    preflight = await preflight_migration(
        registry.client("dev"), registry.client("prod"), ["marketing-funnel"], {}
    )
    assert preflight["errors"] == []
    assert [(d["name"], d["action"]) for d in preflight["dashboards"]] == [
        ("Marketing Funnel", "create")
    ]
    assert {d["action"] for d in preflight["charts"]} == {"create"}
    assert preflight["database_mapping"][0]["action"] == "map"
    steps: list[tuple[int, int, str]] = []

    async def progress(step: int, total: int, message: str) -> None:
        steps.append((step, total, message))

    d = deps(task_id="mig-1", progress=progress)
    result = await run(
        "execute_migration", d, dashboard_ids=["marketing-funnel"], target_env="prod"
    )
    assert result["task_id"] == "mig-1" and result["verified"]
    [dash] = result["dashboards"]
    assert dash["action"] == "created" and dash["charts"] == 2
    assert "Marketing Funnel" in await prod_titles(registry)
    assert [s[0] for s in steps] == [1, 2, 3, 4] and all(s[1] == 4 for s in steps)
    with parts.db.session() as s:
        task = task_store.get_task(s, task_id="mig-1")
    assert (task.status, task.step, task.total) == ("succeeded", 4, 4)
    # the migrated charts run against prod's own database connection
    for chart in await registry.client("prod").dashboard_charts(dash["target_id"]):
        data = await registry.client("prod").chart_data(chart["id"])
        assert data["result"][0]["rowcount"] > 0


async def test_deploy_of_a_dashboard_prod_already_has_reports_overwrite(
    registry: EnvironmentRegistry, prod_restored: None, tmp_path: Path, deps: Deps
) -> None:
    result = await run(
        "deploy_dashboard",
        deps(),
        dashboard_id="sales-overview",
        target_env="prod",
    )
    assert result["action"] == "overwritten" and result["verified"]
    assert result["charts"] == {"overwrite": 3} and result["datasets"] == {"keep": 1}
    prod = await registry.client("prod").get_dashboard("sales-overview")
    assert result["dashboard_id"] == prod["id"]
    assert result["url"].startswith(registry.get("prod").url)


async def test_migration_with_a_database_prod_lacks_is_refused_before_writing(
    registry: EnvironmentRegistry, prod_restored: None, tmp_path: Path, deps: Deps
) -> None:
    preflight = await preflight_migration(
        registry.client("dev"), registry.client("prod"), ["marketing-funnel"], {"Sales": "Nope"}
    )
    assert preflight["errors"] and "'Nope'" in preflight["errors"][0]
    with pytest.raises(ToolError, match="migration refused"):
        await run(
            "execute_migration", deps(), dashboard_ids=["marketing-funnel"],
            target_env="prod", database_mapping={"Sales": "Nope"},
        )  # fmt: skip
    assert "Marketing Funnel" not in await prod_titles(registry)


async def test_backup_then_delete_then_restore_brings_the_dashboard_back(
    registry: EnvironmentRegistry, prod_restored: None, tmp_path: Path, deps: Deps
) -> None:
    d = deps(env_id="prod")
    prod = registry.client("prod")
    original = await prod.get_dashboard("customer-health")
    backup = await run("run_backup", d)  # every dashboard of prod
    assert backup["dashboards"] == "all" and backup["dashboard_count"] >= 3
    stored = backup_dir(d.settings.data_dir, "prod")
    assert (stored / backup["file"]).is_file()
    deleted = await run("delete_dashboard", d, dashboard_id="customer-health")
    assert deleted["deleted"]["id"] == original["id"]
    assert str(d.settings.data_dir) not in repr(deleted)  # the server's paths stay there
    assert any(p.name.endswith(f"_{deleted['backup_id']}.zip") for p in stored.iterdir())
    with pytest.raises(SupersetNotFoundError):
        await prod.get_dashboard("customer-health")
    listed = await run("list_backups", d, dashboard_id="customer-health")
    assert deleted["backup_id"] in [b["backup_id"] for b in listed["backups"]]
    restored = await run("restore_backup", d, backup_id=deleted["backup_id"])
    assert restored["verified"] and restored["target_env"] == "prod"
    back = await prod.get_dashboard("customer-health")
    assert back["dashboard_title"] == original["dashboard_title"]
    assert len(await prod.dashboard_charts(back["id"])) == 2


async def test_git_commit_tree_holds_the_exported_yaml(
    registry: EnvironmentRegistry, tmp_path: Path, deps: Deps
) -> None:
    d = deps()
    await run("create_branch", d, branch="review/sales", dashboard_id="sales-overview")
    commit = await run("commit_changes", d, message="Sales Overview from dev")
    assert commit["committed"] and commit["branch"] == "review/sales"
    repo = tmp_path / "data" / "git"
    tree = subprocess.run(
        ["git", "-C", str(repo), "ls-tree", "-r", "--name-only", commit["sha"]],
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert any(p.startswith("dev/dashboards/Sales_Overview") for p in tree)
    assert sum(p.startswith("dev/charts/") for p in tree) == 3
    assert any(p.startswith("dev/datasets/") for p in tree)
    assert any(p.startswith("dev/databases/") for p in tree)
    author = subprocess.run(
        ["git", "-C", str(repo), "log", "-1", "--format=%an <%ae>"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert author == "alice <alice@ss-tools.local>"
    again = await run("commit_changes", d, message="unchanged")
    assert not again["committed"] and again["sha"] == commit["sha"]


async def test_maintenance_start_writes_a_row_and_end_closes_it(
    registry: EnvironmentRegistry, tmp_path: Path, deps: Deps, parts: Parts
) -> None:
    d = deps()
    started = await run(
        "start_maintenance", d, env_id="prod", reason="upgrade", duration_minutes=60
    )
    assert started["active"] and started["env_id"] == "prod"
    with parts.db.session() as s:
        assert maintenance_store.active_for(s, env_id="prod").started_by == "alice"
        assert maintenance_store.active_for(s, env_id="dev") is None
    ended = await run("end_maintenance", d, env_id="prod")
    assert ended["ended_by"] == "alice"
    with parts.db.session() as s:
        assert maintenance_store.list_active(s) == []
