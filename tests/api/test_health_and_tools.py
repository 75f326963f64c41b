"""HTTP: /api/health and /api/agent/tools through the running app (NiceGUI user fixture)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from nicegui import app as nicegui_app
from nicegui.testing import User

import app as app_package
from app.parts import PARTS_STATE, Parts
from app.replica import replica_tag
from app.sandbox.processes import free_port
from app.store.db import Database, make_engine
from app.tools.catalog import TOOL_CATALOG

ANALYST_DASHBOARD = [
    "search_dashboards",
    "get_health_summary",
    "run_llm_validation",
    "run_llm_documentation",
    "show_capabilities",
]
# the contract's 11 read tools (a read tool declared later is listed with them)
CONTRACT_READ_TOOLS = {
    "show_capabilities", "list_environments", "get_task_status", "search_dashboards",
    "get_health_summary", "run_llm_validation", "run_llm_documentation",
    "superset_explore_database", "superset_format_sql", "superset_audit_permissions",
    "list_backups",
}  # fmt: skip
EVERY_TOOL = set(TOOL_CATALOG)
READ_TOOLS = {name for name, spec in TOOL_CATALOG.items() if spec.risk == "read"}


async def test_health_reports_ok_version_and_database(user: User) -> None:
    r = await user.http_client.get("/api/health")
    assert r.status_code == 200
    assert r.json() == {
        "status": "ok",
        "version": app_package.__version__,
        "replica": replica_tag(),
        "database": {"ok": True, "dialect": "sqlite"},
    }


async def test_health_is_503_when_the_database_is_down(
    user: User, app_parts: Parts, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_port()  # a port with nothing listening
    down = Database(make_engine(f"postgresql://app:pw123@127.0.0.1:{port}/x"))
    monkeypatch.setattr(nicegui_app.state, PARTS_STATE, replace(app_parts, db=down))
    r = await user.http_client.get("/api/health")
    assert r.status_code == 503
    body = r.json()
    assert body["status"] == "degraded" and body["database"]["ok"] is False
    assert body["database"]["dialect"] == "postgresql"
    assert "pw123" not in r.text


TOOL_CASES: list[Any] = [
    # acceptance: analyst on a dashboard page sees exactly these five
    pytest.param(
        {"role": "analyst", "objectType": "dashboard"}, ANALYST_DASHBOARD, id="analyst_dashboard"
    ),
    # acceptance: admin without context sees all 22 (every catalog tool)
    pytest.param({"role": "admin"}, EVERY_TOOL, id="admin_all"),
    # admin on a dashboard page: the 8 with dashboard affinity + show_capabilities
    pytest.param({"role": "admin", "objectType": "dashboard"}, 9, id="admin_dashboard"),
    # an unknown objectType is treated like no context
    pytest.param(
        {"role": "admin", "objectType": "spaceship"}, EVERY_TOOL, id="unknown_object_type"
    ),
    # no role at all: least privilege (read tools only)
    pytest.param({}, READ_TOOLS, id="no_role"),
    # an unknown role: least privilege too
    pytest.param({"role": "root"}, READ_TOOLS, id="unknown_role"),
    # an empty role parameter counts as missing
    pytest.param({"role": "", "objectType": ""}, READ_TOOLS, id="empty_params"),
]


@pytest.mark.parametrize(("params", "expected"), TOOL_CASES)
async def test_tool_listing_follows_role_and_context(
    user: User, params: dict[str, str], expected: Any
) -> None:
    r = await user.http_client.get("/api/agent/tools", params=params)
    assert r.status_code == 200
    body = r.json()
    names = body["tools"]
    if isinstance(expected, int):
        assert len(names) == expected
    elif isinstance(expected, set):
        assert set(names) == expected
    else:
        assert sorted(names) == sorted(expected)
    if expected is READ_TOOLS:
        assert CONTRACT_READ_TOOLS <= set(names)
    excluded = {e["name"] for e in body["excluded"]}
    assert excluded.isdisjoint(names) and len(excluded) + len(names) == len(TOOL_CATALOG)
    assert all(e["reason"] and e["layer"] in {"rbac", "context"} for e in body["excluded"])


async def test_excluded_tools_say_why(user: User) -> None:
    r = await user.http_client.get(
        "/api/agent/tools", params={"role": "analyst", "objectType": "dashboard"}
    )
    reasons = {e["name"]: (e["layer"], e["reason"]) for e in r.json()["excluded"]}
    assert reasons["deploy_dashboard"][0] == "rbac"
    assert "admin" in reasons["deploy_dashboard"][1]
    assert reasons["superset_execute_sql"][0] == "context"
