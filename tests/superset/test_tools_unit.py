"""Read-side tools against a scripted Superset (no network): what the model gets back from
SQL, the permissions audit, the database browser and the capabilities list; a query's
own limit read from its parse tree."""

from __future__ import annotations

import re

import httpx
import pytest

from app.agent.rules import default_policy
from app.errors import NoEnvironmentError, SupersetError
from app.parts import Parts
from app.superset.client import own_limit
from tests.superset.fake import FakeSuperset
from tests.superset.tool_calls import call, deps_for, tool_deps


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
