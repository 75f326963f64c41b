"""Every read-side tool (and create_dataset) against the real Superset sandbox."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from app.agent.rules import default_policy
from app.errors import SupersetError
from app.parts import Parts
from app.sandbox import Sandbox
from app.sandbox.demo import BROKEN_CHART
from app.superset.registry import EnvironmentRegistry
from app.tools import TOOLS
from app.tools.catalog import TOOL_CATALOG
from app.tools.kit import ToolDeps
from tests.support import run_tool

pytestmark = pytest.mark.superset


Deps = Callable[..., ToolDeps]


@pytest.fixture
def deps(registry: EnvironmentRegistry, parts: Parts) -> Deps:
    """``deps(env_id="dev", role=..., **kw)``: a call's dependencies on the sandbox's
    environments and the test's parts."""

    def make(env_id: str = "dev", **kw: Any) -> ToolDeps:
        role = kw.pop("role", "admin")
        return ToolDeps(
            parts.settings, "alice", role, "c1", env_id, registry,
            db=parts.db, tasks=parts.tasks, **kw,
        )  # fmt: skip

    return make


async def run(name: str, d: ToolDeps, **args: Any) -> Any:
    return await run_tool(name, d, **args)


async def test_search_finds_sales_overview_by_title_and_by_slug(
    registry: EnvironmentRegistry, deps: Deps
) -> None:
    by_title = await run("search_dashboards", deps(), query="Sales Over")
    assert [d["title"] for d in by_title["dashboards"]] == ["Sales Overview"]
    hit = by_title["dashboards"][0]
    assert hit["slug"] == "sales-overview" and hit["url"].startswith("http://127.0.0.1:")
    by_slug = await run("search_dashboards", deps(), query="ops-broken")
    assert [d["title"] for d in by_slug["dashboards"]] == ["Ops Broken Demo"]


async def test_search_pages_through_all_dashboards(
    registry: EnvironmentRegistry, deps: Deps
) -> None:
    first = await run("search_dashboards", deps(), page_size=2)
    second = await run("search_dashboards", deps(), page=1, page_size=2)
    assert first["count"] >= 4  # dev has the four demo dashboards
    assert len(first["dashboards"]) == 2
    ids = {d["id"] for d in first["dashboards"]} | {d["id"] for d in second["dashboards"]}
    assert len(ids) == len(first["dashboards"]) + len(second["dashboards"])


async def test_a_page_past_the_last_shows_the_last_and_says_which_was_asked(
    registry: EnvironmentRegistry, deps: Deps
) -> None:
    """A caller that counts pages from 1 asks for page 1 of a one-dashboard result: it gets
    that dashboard, never "nothing found"."""
    out = await run("search_dashboards", deps(), query="Sales Over", page=1)
    assert [d["title"] for d in out["dashboards"]] == ["Sales Overview"]
    assert out["page"] == 0 and out["page_asked"] == 1 and out["count"] == 1
    far = await run("search_dashboards", deps(), page=50, page_size=2)
    assert far["dashboards"] and far["page"] == (far["count"] - 1) // 2 and far["page_asked"] == 50
    asked = await run("search_dashboards", deps(), query="Sales Over")
    assert "page_asked" not in asked  # the page asked is the page shown
    none = await run("search_dashboards", deps(), query="no such dashboard", page=1)
    assert none["dashboards"] == [] and none["count"] == 0 and none["page"] == 1


async def test_search_in_prod_lacks_the_dev_only_dashboard(
    registry: EnvironmentRegistry, deps: Deps
) -> None:
    out = await run("search_dashboards", deps(), query="Marketing", env_id="prod")
    assert out["env"] == "prod" and out["count"] == 0


async def test_health_finds_the_broken_chart(registry: EnvironmentRegistry, deps: Deps) -> None:
    out = await run("get_health_summary", deps(), dashboard_id="ops-broken")
    assert out["verdict"] == "broken"
    assert any(BROKEN_CHART in r and "fails" in r for r in out["reasons"])
    failing = [c for c in out["charts"] if c["status"] == "error"]
    assert [c["name"] for c in failing] == [BROKEN_CHART]


async def test_health_of_a_good_dashboard_has_rows_in_every_chart(
    registry: EnvironmentRegistry, deps: Deps
) -> None:
    out = await run("get_health_summary", deps(), dashboard_id="sales-overview")
    assert out["verdict"] in {"ok", "warning"}  # warning only if the machine is slow
    assert out["charts"] and all(c["status"] == "ok" and c["rows"] > 0 for c in out["charts"])


async def test_validation_reports_rules_and_which_checks_ran(
    registry: EnvironmentRegistry, deps: Deps
) -> None:
    out = await run("run_llm_validation", deps(), dashboard_id="ops-broken")
    assert out["checks_run"] == ["rules"]
    assert out["model_review"] == "not configured (offline planner)"
    assert not out["passed"]
    assert any(BROKEN_CHART in f["object"] and f["severity"] == "error" for f in out["findings"])


async def test_documentation_describes_charts_datasets_and_columns(
    registry: EnvironmentRegistry, deps: Deps
) -> None:
    out = await run("run_llm_documentation", deps(), dashboard_id="sales-overview")
    md = out["markdown"]
    assert md.startswith("# Sales Overview")
    assert "| Total Revenue | big_number_total | sales |" in md
    assert "### sales" in md and "| amount |" in md and "## Datasets (1)" in md


async def test_explore_database_from_databases_down_to_columns(
    registry: EnvironmentRegistry, deps: Deps
) -> None:
    d = deps()
    dbs = await run("superset_explore_database", d)
    assert "Sales" in [db["name"] for db in dbs["databases"]]
    schemas = await run("superset_explore_database", d, database="Sales")
    assert "main" in schemas["schemas"]
    tables = await run("superset_explore_database", d, database="Sales", schema="main")
    assert {"sales", "customers", "funnel", "incidents"} <= {t["name"] for t in tables["tables"]}
    cols = await run("superset_explore_database", d, database="Sales", schema="main", table="sales")
    assert {"order_id", "amount", "region"} <= {c["name"] for c in cols["columns"]}


async def test_format_sql_uses_supersets_formatter(
    registry: EnvironmentRegistry, deps: Deps
) -> None:
    out = await run("superset_format_sql", deps(), sql="select a,b from t where x=1")
    assert out["sql"].startswith("SELECT") and "\nFROM t" in out["sql"]


async def test_sql_count_matches_the_seeded_rows(
    registry: EnvironmentRegistry, superset_sandbox: Sandbox, deps: Deps
) -> None:
    with sqlite3.connect(superset_sandbox.env("prod").data_file) as con:
        (expected,) = con.execute("select count(*) from sales").fetchone()
    out = await run(
        "superset_execute_sql",
        deps("prod"),
        sql="select count(*) as n from sales",
        database="Sales",
    )
    assert out["columns"] == ["n"] and out["rows"] == [{"n": expected}] and expected > 0


async def test_sql_rows_are_capped_by_row_limit(registry: EnvironmentRegistry, deps: Deps) -> None:
    out = await run("superset_execute_sql", deps("prod"), sql="select * from sales", row_limit=7)
    assert out["row_count"] == 7 and len(out["rows"]) == 7 and out["truncated"]


@pytest.mark.parametrize(
    ("sql", "row_limit", "rows", "truncated"),
    [
        ("select order_id from sales limit 2", 100, 2, False),  # the query's own LIMIT holds
        ("select order_id from sales fetch first 3 rows only", 100, 3, False),
        ("select order_id from sales limit 50", 7, 7, True),  # the row limit is smaller
        ("select order_id from sales limit 7", 7, 7, False),  # exactly what was asked for
    ],
)
async def test_a_querys_own_limit_is_kept(
    registry: EnvironmentRegistry, deps: Deps, sql: str, row_limit: int, rows: int, truncated: bool
) -> None:
    """SQL Lab (6.1) rewrites a SELECT's LIMIT to its queryLimit + 1: "limit 2" came back
    with 100 rows. The client sends the smaller of the two."""
    out = await run("superset_execute_sql", deps("dev"), sql=sql, row_limit=row_limit)
    assert (out["row_count"], len(out["rows"]), out["truncated"]) == (rows, rows, truncated)


async def test_dml_is_refused_on_prod_with_a_clear_message(
    registry: EnvironmentRegistry, deps: Deps
) -> None:
    with pytest.raises(SupersetError, match="does not allow DML statements"):
        await run("superset_execute_sql", deps("prod"), sql="delete from sales")


async def test_create_virtual_and_physical_datasets(
    registry: EnvironmentRegistry, deps: Deps
) -> None:
    d = deps("dev")
    name = f"big_orders_{uuid.uuid4().hex[:8]}"
    virtual = await run(
        "superset_create_dataset",
        d,
        database="Sales",
        table_name=name,
        schema="main",
        sql="select * from sales where amount > 100",
    )
    assert virtual["kind"] == "virtual" and virtual["id"]
    found = await registry.client("dev").find_datasets(name)
    assert [ds["id"] for ds in found] == [virtual["id"]]
    table = f"t_{uuid.uuid4().hex[:8]}"  # dev allows DML: make a table to register
    await run("superset_execute_sql", d, sql=f"create table {table} as select * from sales limit 3")
    physical = await run("superset_create_dataset", d, database="Sales", table_name=table)
    assert physical["kind"] == "physical"
    assert (await registry.client("dev").get_dataset(physical["id"]))["table_name"] == table
    with pytest.raises(SupersetError, match="already exists"):
        await run("superset_create_dataset", d, database="Sales", table_name=table)


async def test_a_dataset_that_exists_already_is_found_before_the_card(
    registry: EnvironmentRegistry, deps: Deps
) -> None:
    """The seeded "sales" dataset (schema main): asking for it again, with or without
    its schema, is blocked by the preflight with its id; another schema or table is not."""
    check = TOOLS["superset_create_dataset"].preflight
    assert check is not None
    args = TOOL_CATALOG["superset_create_dataset"].args_model
    sales = (await registry.client("dev").find_datasets("sales"))[0]
    for schema in (None, "main"):
        found = await check(args(database="Sales", table_name="sales", schema=schema), deps())
        (problem,) = found["errors"]
        assert "a dataset 'sales' already exists in database 'Sales' (schema main)" in problem
        assert f"datasource_id={sales['id']}" in problem
    assert await check(args(database="Sales", table_name="sales", schema="other"), deps()) == {}
    assert await check(args(database="Sales", table_name="no_such_t"), deps()) == {}


async def test_audit_lists_admin_and_flags_broad_roles(
    registry: EnvironmentRegistry, deps: Deps
) -> None:
    out = await run("superset_audit_permissions", deps())
    roles = {r["name"]: r for r in out["roles"]}
    assert "admin" in roles["Admin"]["users"] and roles["Admin"]["permission_count"] > 100
    assert roles["Admin"]["flags"] == []
    assert "Alpha" in out["flagged_roles"]  # Superset's Alpha holds all_datasource_access
    only = await run("superset_audit_permissions", deps(), role="admin")
    assert [r["name"] for r in only["roles"]] == ["Admin"]


async def test_list_environments_shows_both_sandboxes_reachable(
    registry: EnvironmentRegistry, deps: Deps
) -> None:
    out = await run("list_environments", deps())
    rows = {e["id"]: e for e in out["environments"]}
    assert rows["dev"]["reachable"] and rows["prod"]["reachable"]
    assert (rows["dev"]["tier"], rows["prod"]["tier"]) == ("dev", "prod")
    assert not rows["dev"]["in_maintenance"] and out["selected"] == "dev"


async def test_capabilities_and_task_status_need_no_superset(
    registry: EnvironmentRegistry, deps: Deps
) -> None:
    caps = await run("show_capabilities", deps(role="analyst", policy=default_policy()))
    assert caps["count"] > 0 and caps["role"] == "analyst"
    tasks = await run("get_task_status", deps())
    assert tasks == {"tasks": [], "count": 0}
