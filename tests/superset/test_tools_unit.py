"""Read-side tools against a scripted Superset (no network): what the model gets back."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from app.agent.rules import default_policy
from app.errors import NoEnvironmentError, SupersetError, SupersetUnavailableError
from app.parts import Parts
from app.superset.client import own_limit
from app.superset.environments import Environment
from app.superset.health import ChartCheck, verdict
from app.superset.registry import EnvironmentRegistry
from app.tools.kit import ToolDeps
from tests.superset.fake import FakeSuperset, make_env
from tests.support import run_tool


def deps_for(
    parts: Parts, fake: FakeSuperset, *envs: Environment, role: str = "admin", **kw: Any
) -> ToolDeps:
    """A call's dependencies on the test's parts with ``envs`` served by ``fake``."""
    registry = EnvironmentRegistry(envs or [make_env()], transport=httpx.MockTransport(fake))
    return tool_deps(parts, role=role, env_id=kw.pop("env_id", None), registry=registry, **kw)


def tool_deps(
    parts: Parts,
    *,
    user_id: str = "alice",
    role: str = "admin",
    conv_id: str = "c1",
    env_id: str | None = None,
    registry: EnvironmentRegistry | None = None,
    **kw: Any,
) -> ToolDeps:
    """A call's dependencies on the test's parts (settings, database, task runner);
    ``registry`` defaults to one with no environment."""
    return ToolDeps(
        settings=parts.settings,
        user_id=user_id,
        role=role,
        conv_id=conv_id,
        env_id=env_id,
        registry=registry if registry is not None else EnvironmentRegistry([]),
        db=parts.db,
        tasks=parts.tasks,
        **kw,
    )


async def call(name: str, deps: ToolDeps, **args: Any) -> Any:
    return await run_tool(name, deps, **args)


def dashboard_fake(chart_data: dict[int, Any]) -> FakeSuperset:
    """One dashboard (id 5) with two charts on dataset 1, plus an unused dataset 2."""
    fake = FakeSuperset()
    fake.route("GET", "/api/v1/dashboard/sales", {"result": {"id": 5, "dashboard_title": "Sales"}})
    charts = [
        {"id": 1, "slice_name": "Revenue", "form_data": {"datasource": "1__table"}},
        {"id": 2, "slice_name": "Refunds", "form_data": {"datasource": "1__table"}},
    ]
    fake.route("GET", "/api/v1/dashboard/5/charts", {"result": charts})
    datasets = [{"id": 1, "table_name": "sales"}, {"id": 2, "table_name": "unused"}]
    fake.route("GET", "/api/v1/dashboard/5/datasets", {"result": datasets})
    for cid in (1, 2):
        qc = '{"queries": []}' if cid in chart_data else None
        detail = {"id": cid, "viz_type": "table", "query_context": qc, "description": ""}
        fake.route("GET", f"/api/v1/chart/{cid}", {"result": detail})
    for cid, reply in chart_data.items():
        fake.route("GET", f"/api/v1/chart/{cid}/data/", reply)
    for did in (1, 2):
        ds = {"id": did, "table_name": "x", "changed_on": "2020-01-01T00:00:00"}
        fake.route("GET", f"/api/v1/dataset/{did}", {"result": ds})
    return fake


def rows(n: int) -> dict[str, Any]:
    return {"result": [{"rowcount": n, "data": [{}] * n}]}


async def test_health_finds_the_broken_chart_and_says_broken(parts: Parts) -> None:
    broken = httpx.Response(400, json={"errors": [{"message": "no such column: refund"}]})
    fake = dashboard_fake({1: rows(3), 2: lambda r: broken})
    out = await call("get_health_summary", deps_for(parts, fake), dashboard_id="sales")
    assert out["verdict"] == "broken"
    assert any("'Refunds' (id 2) fails" in r and "no such column" in r for r in out["reasons"])
    statuses = {c["id"]: c["status"] for c in out["charts"]}
    assert statuses == {1: "ok", 2: "error"}
    assert out["stale_datasets"]  # changed in 2020: stale


async def test_health_does_not_blame_a_chart_when_superset_is_down(parts: Parts) -> None:
    fake = dashboard_fake({1: rows(3), 2: lambda r: httpx.Response(502, text="bad gateway")})
    with pytest.raises(SupersetUnavailableError):
        await call("get_health_summary", deps_for(parts, fake), dashboard_id="sales")


@pytest.mark.parametrize(
    ("checks", "stale", "expected"),
    [
        # every chart returns rows, nothing stale
        ([ChartCheck(1, "a", "ok", rows=2)], [], "ok"),
        # an empty chart is a warning
        ([ChartCheck(1, "a", "empty", rows=0)], [], "warning"),
        # a chart that cannot be checked is a warning, not ok
        ([ChartCheck(1, "a", "unchecked")], [], "warning"),
        # a slow chart is a warning
        ([ChartCheck(1, "a", "ok", rows=1, ms=9000.0, slow=True)], [], "warning"),
        # a stale dataset is a warning
        ([ChartCheck(1, "a", "ok", rows=1)], [{"name": "s", "changed_on": "2020"}], "warning"),
        # one failing chart makes the dashboard broken, whatever else is true
        ([ChartCheck(1, "a", "ok", rows=1), ChartCheck(2, "b", "error", error="x")], [], "broken"),
        # no charts at all: nothing to trust
        ([], [], "warning"),
    ],
)
def test_health_verdict(
    checks: list[ChartCheck], stale: list[dict[str, Any]], expected: str
) -> None:
    report = verdict(checks, stale)
    assert report.verdict == expected
    assert (report.reasons == []) == (expected == "ok")
    said_ru = verdict(checks, stale, "ru")  # the same reasons, in Russian on a Russian turn
    assert said_ru.verdict == expected and len(said_ru.reasons) == len(report.reasons)


def test_health_reasons_are_said_in_the_turns_language() -> None:
    checks = [ChartCheck(2, "Refunds", "error", error="no column"), ChartCheck(3, "Q", "empty")]
    assert verdict(checks, []).reasons == [
        "chart 'Refunds' (id 2) fails: no column",
        "chart 'Q' (id 3) returns no rows",
    ]
    assert verdict(checks, [], "ru").reasons == [
        "график «Refunds» (id 2) не загружается: no column",
        "график «Q» (id 3) не возвращает строк",
    ]


async def test_validation_runs_rules_and_says_the_model_review_is_not_configured(
    parts: Parts,
) -> None:
    fake = dashboard_fake({1: rows(1)})  # chart 2 has no saved query context
    out = await call("run_llm_validation", deps_for(parts, fake), dashboard_id="sales")
    assert out["checks_run"] == ["rules"]
    assert out["model_review"] == "not configured (offline planner)"
    issues = [(f["object"], f["issue"]) for f in out["findings"]]
    assert (
        "chart 'Refunds' (id 2)",
        "chart has no saved query context (re-save it in Superset)",
    ) in issues
    assert ("dataset 'unused' (id 2)", "not used by any chart here") in issues
    assert ("dashboard 5", "dashboard has no description (no markdown text block)") in issues
    # on a Russian turn the same findings are said in Russian; their severity stays a code
    ru = await call("run_llm_validation", deps_for(parts, fake, lang="ru"), dashboard_id="sales")
    said = [(f["severity"], f["object"], f["issue"]) for f in ru["findings"]]
    assert (
        "warning",
        "график «Refunds» (id 2)",
        "у графика нет сохранённого запроса (пересохраните его в Superset)",
    ) in said
    assert ("info", "датасет «unused» (id 2)", "не используется ни одним графиком здесь") in said
    assert ru["counts"] == out["counts"]


async def test_documentation_lists_charts_datasets_columns_and_metrics(parts: Parts) -> None:
    fake = dashboard_fake({1: rows(1)})
    ds = {
        "id": 1,
        "table_name": "sales",
        "schema": "main",
        "database": {"database_name": "Sales"},
        "columns": [{"column_name": "amount", "type": "REAL"}],
        "metrics": [{"metric_name": "revenue", "expression": "SUM(amount)"}],
    }
    fake.route("GET", "/api/v1/dataset/1", {"result": ds})
    out = await call("run_llm_documentation", deps_for(parts, fake), dashboard_id="sales")
    md = out["markdown"]
    assert md.startswith("# Sales\n")
    assert "| Revenue | table | sales |" in md
    assert "### sales" in md and "| amount | REAL |" in md and "| revenue | `SUM(amount)` |" in md


async def test_execute_sql_surfaces_the_dml_refusal(parts: Parts) -> None:
    fake = FakeSuperset()
    fake.route("GET", "/api/v1/database/", {"result": [{"id": 1, "database_name": "Sales"}]})
    body = {"errors": [{"message": "This database does not allow for DDL/DML",
                        "error_type": "DML_NOT_ALLOWED_ERROR"}]}  # fmt: skip
    fake.route("POST", "/api/v1/sqllab/execute/", lambda r: httpx.Response(500, json=body))
    with pytest.raises(SupersetError, match="does not allow DML statements") as info:
        await call("superset_execute_sql", deps_for(parts, fake), sql="delete from sales")
    assert not info.value.retryable  # a refusal is final, not worth a retry


async def test_execute_sql_caps_rows_and_reports_the_count(parts: Parts) -> None:
    fake = FakeSuperset()
    fake.route("GET", "/api/v1/database/", {"result": [{"id": 1, "database_name": "Sales"}]})
    data = [{"n": i} for i in range(5)]
    fake.route("POST", "/api/v1/sqllab/execute/",
               {"status": "success", "data": data, "columns": [{"column_name": "n"}]})  # fmt: skip
    out = await call(
        "superset_execute_sql", deps_for(parts, fake), sql="select n from t", row_limit=5
    )
    assert out["columns"] == ["n"] and out["row_count"] == 5 and len(out["rows"]) == 5
    assert out["truncated"] is True  # as many rows as the limit: there may be more
    assert fake.requests[-1].read().count(b'"queryLimit":5') == 1


async def test_audit_flags_over_broad_grants_of_non_admin_roles(parts: Parts) -> None:
    fake = FakeSuperset()
    fake.route("GET", "/api/v1/security/roles/search/",
               {"result": [{"id": 1, "name": "Admin"}, {"id": 3, "name": "Alpha"}]})  # fmt: skip
    broad = [{"permission_name": "all_database_access", "view_menu_name": "all_database_access"},
             {"permission_name": "can_write", "view_menu_name": "Role"},
             {"permission_name": "can_read", "view_menu_name": "Dashboard"}]  # fmt: skip
    fake.route("GET", "/api/v1/security/roles/1/permissions/", {"result": broad})
    fake.route("GET", "/api/v1/security/roles/3/permissions/", {"result": broad})
    admin = {"username": "admin", "roles": [{"id": 1, "name": "Admin"}]}
    fake.route("GET", "/api/v1/security/users/", {"result": [admin]})
    out = await call("superset_audit_permissions", deps_for(parts, fake))
    roles = {r["name"]: r for r in out["roles"]}
    assert roles["Admin"]["flags"] == [] and roles["Admin"]["users"] == ["admin"]
    assert roles["Alpha"]["flags"] == [
        "all_database_access: may query every database",
        "can_write on Role: may edit roles (privilege escalation)",
    ]
    assert out["flagged_roles"] == ["Alpha"] and roles["Alpha"]["permission_count"] == 3
    ru = await call("superset_audit_permissions", deps_for(parts, fake, lang="ru"))
    assert {r["name"]: r for r in ru["roles"]}["Alpha"]["flags"] == [
        "all_database_access: может запрашивать любую базу",
        "can_write on Role: может менять роли (повышение привилегий)",
    ]


@pytest.mark.parametrize(
    ("args", "level"),
    [
        ({}, "databases"),  # nothing given: the databases
        ({"database": "Sales"}, "schemas"),  # a database: its schemas
        ({"database": "1", "schema": "main"}, "tables"),  # by id, plus a schema: tables
        ({"database": "sales", "schema": "main", "table": "t"}, "columns"),  # name is case-free
    ],
)
async def test_explore_database_descends_by_the_arguments_given(
    args: dict[str, str], level: str, parts: Parts
) -> None:
    fake = FakeSuperset()
    fake.route("GET", "/api/v1/database/", {"result": [{"id": 1, "database_name": "Sales"}]})
    fake.route("GET", "/api/v1/database/1/schemas/", {"result": ["main"]})
    fake.route("GET", "/api/v1/database/1/tables/", {"result": [{"value": "t", "type": "table"}]})
    fake.route("GET", "/api/v1/database/1/table_metadata/",
               {"columns": [{"name": "a", "type": "INTEGER"}]})  # fmt: skip
    out = await call("superset_explore_database", deps_for(parts, fake), **args)
    assert out["level"] == level
    assert out[level]  # something listed at that level


async def test_tools_without_environments_say_none_is_configured(parts: Parts) -> None:
    deps = tool_deps(parts, user_id="u", conv_id="c")
    with pytest.raises(NoEnvironmentError, match="no Superset environment configured"):
        await call("search_dashboards", deps)


@pytest.mark.parametrize(
    ("role", "object_type", "present", "absent"),
    [
        ("admin", None, "delete_dashboard", None),  # admin, no context: everything
        ("analyst", None, "search_dashboards", "delete_dashboard"),  # RBAC removes writes
        ("admin", "dashboard", "get_health_summary", "superset_execute_sql"),  # affinity
    ],
)
async def test_capabilities_follow_role_and_context(
    role: str, object_type: str | None, present: str, absent: str | None, parts: Parts
) -> None:
    deps = tool_deps(
        parts, user_id="u", role=role, conv_id="c", object_type=object_type,
        policy=default_policy(),
    )  # fmt: skip
    out = await call("show_capabilities", deps)
    names = {t["name"] for group in out["groups"].values() for t in group}
    assert present in names and "show_capabilities" in names
    assert absent is None or absent not in names
    assert out["count"] == len(names)
    assert all(t["description"] for group in out["groups"].values() for t in group)


async def test_capabilities_say_what_each_tool_does_in_the_persons_language(parts: Parts) -> None:
    """The capabilities table on a Russian turn: what each tool does in Russian (its
    ``can``), not the model's English description."""
    rows = {}
    for lang in ("en", "ru"):
        deps = tool_deps(parts, role="admin", policy=default_policy(), lang=lang)
        out = await call("show_capabilities", deps)
        rows[lang] = {t["name"]: t["description"] for g in out["groups"].values() for t in g}
    assert rows["en"]["search_dashboards"] == "Searches dashboards by title in one environment"
    assert rows["ru"]["search_dashboards"] == "Найти дашборды"
    assert set(rows["ru"]) == set(rows["en"])
    assert all(re.search("[а-яё]", text, re.IGNORECASE) for text in rows["ru"].values())


@pytest.mark.parametrize(
    ("sql", "limit"),
    [
        ("select a from t limit 2", 2),
        ("SELECT a FROM t LIMIT 2;", 2),
        ("select a from t limit 2 offset 10", 2),
        ("with q as (select 1 as a) select a from q limit 7", 7),
        ("select a from t fetch first 3 rows only", 3),
        ("select a from t union select b from u limit 4", 4),
        ("select * from (select a from t limit 5) x", None),  # a subquery's, not the query's
        ("select a from t", None),
        ("select a from t limit :n", None),  # not a number
        ("select 1 limit 1; select 2", None),  # several statements
        ("select from where (", None),  # not parsable
        ("-- only a comment", None),
    ],
)
def test_a_querys_own_limit_is_read_from_its_parse_tree(sql: str, limit: int | None) -> None:
    assert own_limit(sql) == limit
