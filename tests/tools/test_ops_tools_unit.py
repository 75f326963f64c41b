"""The ops tools against a scripted Superset and local files: git, backups, migration
preflight, maintenance rows. (The real thing is tests/integration/test_ops_tools.py.)"""

from __future__ import annotations

import io
import json
import subprocess
import zipfile
from typing import Any

import httpx
import pytest
import yaml

from app.errors import ToolError
from app.gitrepo import GitError
from app.parts import Parts
from app.store import maintenance as maintenance_store
from app.store import tasks as task_store
from app.store.maintenance import MaintenanceActiveError
from app.superset.migration import preflight_migration
from app.superset.registry import EnvironmentRegistry
from app.tools.kit import ToolDeps
from tests.superset.fake import FakeSuperset, make_env
from tests.support import run_tool
from tests.tools.export_zip import CHART_UUID, DASHBOARD_UUID, DB_UUID, make_export_zip

DASH = {"id": 1, "dashboard_title": "Sales Overview", "slug": "sales-overview"}
EMPTY = {"count": 0, "result": []}
DEV_DBS = [{"database_name": "examples", "uuid": DB_UUID, "id": 1}]


def superset(*, target_dbs: list[dict] | None = None) -> FakeSuperset:
    """dev holds "Sales Overview" (export = the hand-made zip); prod holds ``target_dbs``."""
    fake = FakeSuperset()
    imported: list[tuple[str, bytes]] = []
    fake.imported = imported  # type: ignore[attr-defined]

    def by_host(dev: Any, prod: Any):
        def handler(request: httpx.Request) -> httpx.Response:
            reply = dev if request.url.host == "dev.test" else prod
            return reply(request) if callable(reply) else httpx.Response(200, json=reply)

        return handler

    def import_(request: httpx.Request) -> httpx.Response:
        body = request.content
        start = body.index(b"PK\x03\x04")
        imported.append((request.url.path, body[start : body.rindex(b"\r\n--")]))
        return httpx.Response(200, json={"message": "OK"})

    not_found = httpx.Response(404, json={"message": "Not found"})
    fake.route(
        "GET",
        "/api/v1/dashboard/(1|sales-overview)",
        by_host({"result": DASH}, lambda r: not_found),
    )
    fake.route(
        "GET", "/api/v1/dashboard/export/", lambda r: httpx.Response(200, content=make_export_zip())
    )
    dbs = (
        target_dbs
        if target_dbs is not None
        else [{"database_name": "examples", "uuid": DB_UUID, "id": 1}]
    )
    fake.route("GET", "/api/v1/database/", by_host({"result": DEV_DBS}, {"result": dbs}))
    for resource in ("dataset", "chart"):
        fake.route("GET", f"/api/v1/{resource}/", EMPTY)
    fake.route("GET", "/api/v1/dashboard/", by_host({"count": 1, "result": [DASH]}, EMPTY))
    fake.route("POST", "/api/v1/(chart|dashboard)/import/", import_)
    fake.route("GET", f"/api/v1/dashboard/{DASHBOARD_UUID}", {"result": {**DASH, "id": 9}})
    fake.route("GET", "/api/v1/dashboard/9/charts", {"result": [{"id": 3}]})
    fake.route("DELETE", "/api/v1/dashboard/1", {"message": "OK"})
    return fake


def deps_for(fake: FakeSuperset, parts: Parts, *, progress=None, task_id=None) -> ToolDeps:
    """A call's dependencies on the test's parts (its data dir, database and task runner)
    with dev and prod served by ``fake``."""
    envs = [
        make_env(id="dev", url="http://dev.test"),
        make_env(id="prod", url="http://prod.test", tier="prod"),
    ]
    registry = EnvironmentRegistry(envs, transport=httpx.MockTransport(fake))
    return ToolDeps(settings=parts.settings, user_id="alice", role="admin", conv_id="c1",
                    env_id="dev", registry=registry, task_id=task_id, progress=progress,
                    db=parts.db, tasks=parts.tasks)  # fmt: skip


async def call(name: str, deps: ToolDeps, **args: Any) -> Any:
    return await run_tool(name, deps, **args)


def git(tmp_path, *args: str) -> str:
    repo = tmp_path / "data" / "git"
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


# --- git ---------------------------------------------------------------------------------
async def test_commit_changes_stores_the_export_as_yaml_files_authored_by_the_user(
    tmp_path, parts: Parts
):
    deps = deps_for(superset(), parts)
    branch = await call(
        "create_branch", deps, branch="feature/sales", dashboard_id="sales-overview"
    )
    assert branch["branch"] == "feature/sales" and branch["dashboards"] == ["sales-overview"]
    # no dashboard ids: the branch's own dashboard is exported
    first = await call("commit_changes", deps, message="Sales as in dev")
    assert first["committed"] and first["branch"] == "feature/sales"
    tree = git(tmp_path, "ls-tree", "-r", "--name-only", "feature/sales").split()
    assert "dev/dashboards/Sales_Overview_1.yaml" in tree and "dev/charts/Revenue_7.yaml" in tree
    assert git(tmp_path, "log", "-1", "--format=%an <%ae>|%s").strip() == (
        "alice <alice@ss-tools.local>|Sales as in dev"
    )
    assert "timestamp" not in git(tmp_path, "show", "HEAD:dev/metadata.yaml")
    again = await call("commit_changes", deps, message="again", dashboard_ids=["1"])
    assert not again["committed"] and again["sha"] == first["sha"]
    assert "nothing to commit" in again["message"]


async def test_commit_changes_to_a_new_branch_creates_it_and_leaves_main_alone(
    tmp_path, parts: Parts
):
    deps = deps_for(superset(), parts)
    result = await call("commit_changes", deps, message="m", dashboard_ids=["1"], branch="review/1")
    assert result["branch"] == "review/1"
    assert git(tmp_path, "ls-tree", "-r", "--name-only", "main").split() == ["README.md"]


async def test_create_branch_refuses_a_name_git_would_not_accept(tmp_path, parts: Parts):
    deps = deps_for(superset(), parts)
    with pytest.raises(GitError, match="invalid branch name"):
        await call("create_branch", deps, branch="bad..name")
    with pytest.raises(GitError, match="invalid branch name"):
        await call("commit_changes", deps, message="m", branch="has space")


# --- backups -------------------------------------------------------------------------------
async def test_run_backup_writes_an_indexed_zip_as_a_task_with_progress(tmp_path, parts: Parts):
    steps: list[tuple[int, int, str]] = []

    async def progress(step: int, total: int, message: str) -> None:
        steps.append((step, total, message))

    deps = deps_for(superset(), parts, progress=progress, task_id="task-backup-1")
    result = await call("run_backup", deps, dashboard_ids=["sales-overview"])
    path = tmp_path / "data" / "backups" / "dev" / result["file"]
    assert path.is_file() and path.name.endswith(f"_{result['backup_id']}.zip")
    assert zipfile.ZipFile(path).testzip() is None
    assert result["dashboards"] == ["1", "sales-overview"] and result["task_id"] == "task-backup-1"
    assert [s[:2] for s in steps] == [(1, 2), (2, 2)]
    with parts.db.session() as s:
        assert task_store.get_task(s, task_id="task-backup-1").status == "succeeded"
    for key, count in (("sales-overview", 1), ("1", 1), ("other", 0)):
        listed = await call("list_backups", deps, dashboard_id=key)
        assert listed["count"] == count, key


async def test_delete_dashboard_backs_up_first_and_names_the_backup_not_its_path(
    tmp_path, parts: Parts
):
    fake = superset()
    deps = deps_for(fake, parts)
    result = await call("delete_dashboard", deps, dashboard_id="sales-overview")
    paths = fake.paths()
    assert paths.index("GET /api/v1/dashboard/export/") < paths.index("DELETE /api/v1/dashboard/1")
    assert result["deleted"]["id"] == 1
    assert result["backup_id"] in result["message"]
    assert "backup_path" not in result and str(tmp_path) not in repr(result)
    listed = await call("list_backups", deps)
    assert [b["backup_id"] for b in listed["backups"]] == [result["backup_id"]]


async def test_restore_backup_imports_the_stored_zip_into_the_backups_env(tmp_path, parts: Parts):
    fake = superset()
    deps = deps_for(fake, parts)
    backup = await call("run_backup", deps, dashboard_ids=["1"])
    result = await call("restore_backup", deps, backup_id=backup["backup_id"])
    assert result["target_env"] == "dev" and result["verified"]
    assert [p for p, _ in fake.imported] == ["/api/v1/chart/import/", "/api/v1/dashboard/import/"]
    dash_zip = zipfile.ZipFile(io.BytesIO(fake.imported[1][1]))
    dash_file = next(n for n in dash_zip.namelist() if "/dashboards/" in n)
    assert yaml.safe_load(dash_zip.read(dash_file))["uuid"] == DASHBOARD_UUID
    chart_zip = zipfile.ZipFile(io.BytesIO(fake.imported[0][1]))
    meta = next(n for n in chart_zip.namelist() if n.endswith("metadata.yaml"))
    assert yaml.safe_load(chart_zip.read(meta))["type"] == "Slice"


async def test_restore_of_an_unknown_or_lost_backup_is_a_clear_error(tmp_path, parts: Parts):
    deps = deps_for(superset(), parts)
    with pytest.raises(ToolError, match="no backup 'nope'"):
        await call("restore_backup", deps, backup_id="nope")
    backup = await call("run_backup", deps, dashboard_ids=["1"])
    assert "/" not in backup["file"] and str(tmp_path) not in repr(backup)
    (tmp_path / "data" / "backups" / "dev" / backup["file"]).unlink()
    with pytest.raises(ToolError, match="file is missing"):
        await call("restore_backup", deps, backup_id=backup["backup_id"])


# --- migration -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("target_dbs", "mapping", "error"),
    [
        # same-named database on the target: mapped, nothing blocks
        ([{"database_name": "examples", "uuid": DB_UUID}], {}, None),
        # no match and no mapping: refused before anything is written
        ([{"database_name": "warehouse", "uuid": "u-2"}], {}, "no match on the target"),
        # an explicit mapping onto the target's database fixes it
        ([{"database_name": "warehouse", "uuid": "u-2"}], {"examples": "warehouse"}, None),
    ],
)
async def test_preflight_lists_what_will_be_created_and_blocks_unmapped_databases(
    tmp_path, target_dbs, mapping, error, parts: Parts
):
    fake = superset(target_dbs=target_dbs)
    deps = deps_for(fake, parts)
    details = await preflight_migration(deps.client("dev"), deps.client("prod"), ["1"], mapping)
    assert [d["action"] for d in details["dashboards"]] == ["create"]
    assert details["charts"] == [{"name": "Revenue", "uuid": CHART_UUID, "action": "create"}]
    if error is None:
        assert details["errors"] == []
        assert "dashboards: 1 to create" in details["summary"]
    else:
        assert len(details["errors"]) == 1 and error in details["errors"][0]
    writes = [p for p in fake.paths() if p.startswith(("POST", "PUT", "DELETE"))]
    assert set(writes) == {"POST /api/v1/security/login"}  # reads only
    json.dumps(details)  # shown in the confirmation card: must be JSON


async def test_a_migration_with_an_unmapped_database_writes_nothing(tmp_path, parts: Parts):
    fake = superset(target_dbs=[])
    deps = deps_for(fake, parts, task_id="task-mig-1")
    with pytest.raises(ToolError, match="migration refused"):
        await call("execute_migration", deps, dashboard_ids=["1"], target_env="prod")
    assert fake.imported == []
    with parts.db.session() as s:
        task = task_store.get_task(s, task_id="task-mig-1")
    assert task.status == "failed" and "no match on the target" in task.error


async def test_deploy_to_the_same_environment_is_refused(tmp_path, parts: Parts):
    deps = deps_for(superset(), parts)
    with pytest.raises(ToolError, match="same environment"):
        await call("deploy_dashboard", deps, dashboard_id="1", target_env="dev")


# --- maintenance ---------------------------------------------------------------------------
async def test_maintenance_rows_open_and_close(tmp_path, parts: Parts):
    deps = deps_for(superset(), parts)
    started = await call(
        "start_maintenance", deps, env_id="prod", reason="upgrade", duration_minutes=30
    )
    assert started["active"] and started["ends_at"] and started["started_by"] == "alice"
    with parts.db.session() as s:
        assert maintenance_store.active_for(s, env_id="prod").reason == "upgrade"
    with pytest.raises(MaintenanceActiveError, match="already in maintenance"):
        await call("start_maintenance", deps, env_id="prod")
    ended = await call("end_maintenance", deps, env_id="prod")
    assert not ended["active"] and ended["ended_by"] == "alice"
    with parts.db.session() as s:
        assert maintenance_store.active_for(s, env_id="prod") is None
    with pytest.raises(ToolError, match="not in maintenance"):
        await call("end_maintenance", deps, env_id="prod")
