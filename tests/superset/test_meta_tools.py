"""list_environments and get_task_status over the app's own store (the test's parts)."""

from __future__ import annotations

import httpx
import pytest

from app.errors import ToolError
from app.parts import Parts
from app.store import maintenance, tasks
from app.store.models import Maintenance
from app.superset.registry import EnvironmentRegistry
from tests.superset.fake import make_env
from tests.superset.tool_calls import call, tool_deps


def health_only(request: httpx.Request) -> httpx.Response:
    if request.url.host == "down.test":
        raise httpx.ConnectError("refused", request=request)
    return httpx.Response(200, text="OK")


async def test_environments_show_tier_reachability_maintenance_and_config_errors(
    parts: Parts,
) -> None:
    envs = [
        make_env(id="dev", url="http://up.test", tier="dev"),
        make_env(id="prod", url="http://down.test", tier="prod"),
        make_env(id="staging", url="http://up.test", tier="staging", password=None),
    ]
    registry = EnvironmentRegistry(
        envs,
        errors={"staging": "password variable SS_STAGING_PASSWORD is not set"},
        transport=httpx.MockTransport(health_only),
    )
    with parts.db.session() as s:
        maintenance.start(s, Maintenance(env_id="dev", started_by="bob", reason="upgrade"))
    deps = tool_deps(parts, env_id="prod", registry=registry)
    out = await call("list_environments", deps)
    rows = {e["id"]: e for e in out["environments"]}
    assert out["selected"] == "prod"
    assert (rows["dev"]["reachable"], rows["prod"]["reachable"]) == (True, False)
    assert rows["staging"]["reachable"] is None  # not probed: it cannot be used anyway
    assert rows["staging"]["error"] == "password variable SS_STAGING_PASSWORD is not set"
    assert rows["dev"]["in_maintenance"] and rows["dev"]["maintenance"]["reason"] == "upgrade"
    assert not rows["prod"]["in_maintenance"]
    assert [rows[i]["tier"] for i in ("dev", "prod", "staging")] == ["dev", "prod", "staging"]
    assert "password" not in str(out).replace("password variable", "")
    await registry.aclose()


async def test_no_environments_is_an_answer_not_an_error(parts: Parts) -> None:
    deps = tool_deps(parts, registry=EnvironmentRegistry([]))
    out = await call("list_environments", deps)
    assert out["environments"] == [] and "no Superset environment configured" in out["note"]


async def test_task_status_shows_step_i_of_n_and_recent_tasks_of_this_user(
    parts: Parts,
) -> None:
    with parts.db.session() as s:
        t = tasks.create_task(s, kind="backup", user="alice", env_id="dev", total=4)
        tasks.update_progress(s, task_id=t.id, step=2, message="exporting dashboards")
        tasks.create_task(s, kind="migration", user="bob")
    deps = tool_deps(parts, role="analyst")
    one = (await call("get_task_status", deps, task_id=t.id))["task"]
    assert (one["status"], one["progress"], one["message"]) == (
        "running",
        "step 2 of 4",
        "exporting dashboards",
    )
    recent = await call("get_task_status", deps)
    assert [r["kind"] for r in recent["tasks"]] == ["backup"]  # only alice's tasks


@pytest.mark.parametrize(
    ("role", "visible"),
    [
        ("analyst", False),  # another user's task is not shown to an analyst
        ("admin", True),  # admins see every task
    ],
)
async def test_task_of_another_user(parts: Parts, role: str, visible: bool) -> None:
    with parts.db.session() as s:
        t = tasks.create_task(s, kind="migration", user="bob")
    deps = tool_deps(parts, role=role)
    if visible:
        assert (await call("get_task_status", deps, task_id=t.id))["task"]["kind"] == "migration"
    else:
        with pytest.raises(ToolError, match="no task with id"):
            await call("get_task_status", deps, task_id=t.id)
