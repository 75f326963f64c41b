"""ToolFilter.Pipeline and ToolFilter.InvocationGuard: RBAC first, then context."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from app.policy import (
    DEFAULT_POLICY,
    TOOL_CATALOG,
    Decision,
    Exclusion,
    build_tool_pipeline,
    enforce_tool_permission,
)
from tests.policy.contract import ADMIN_ONLY
from tests.policy.test_catalog import DESIGN_TABLE

ALL = list(TOOL_CATALOG)
DASHBOARD_ADMIN = {
    "search_dashboards",
    "get_health_summary",
    "deploy_dashboard",
    "run_llm_validation",
    "run_llm_documentation",
    "execute_migration",
    "create_branch",
    "commit_changes",
    "show_capabilities",
}
DASHBOARD_ANALYST = {
    "search_dashboards",
    "get_health_summary",
    "run_llm_validation",
    "run_llm_documentation",
    "show_capabilities",
}
READ_TOOLS = {n for n, s in TOOL_CATALOG.items() if s.risk == "read"}
CONTRACT = list(DESIGN_TABLE)  # the contract's 22 tools


def names(role: str | None, object_type: str | None, tools: list[str] | None = None) -> set[str]:
    given = ALL if tools is None else tools
    return set(build_tool_pipeline(given, role, object_type, policy=DEFAULT_POLICY).tools)


@pytest.mark.parametrize(
    ("role", "object_type", "expected"),
    [
        # TEST_EDGE null_objectType: no context → every RBAC-allowed tool (analyst: 22 - 9)
        pytest.param("analyst", None, set(ALL) - ADMIN_ONLY, id="null_objectType"),
        # TEST_EDGE dashboard+analyst: the 9 dashboard tools minus the admin ones
        pytest.param("analyst", "dashboard", DASHBOARD_ANALYST, id="dashboard+analyst"),
        # TEST_EDGE unknown_objectType: graceful fallback to every RBAC-allowed tool
        pytest.param("analyst", "chart", set(ALL) - ADMIN_ONLY, id="unknown_objectType"),
        # TEST_EDGE null_uicontext (handler): admin without context sees all 22
        pytest.param("admin", None, set(ALL), id="admin_no_context_22"),
        # TEST_EDGE dashboard_context (handler): the 8 affinity tools + show_capabilities
        pytest.param("admin", "dashboard", DASHBOARD_ADMIN, id="dashboard+admin_9"),
        # unknown objectType for admin also keeps everything
        pytest.param("admin", "report", set(ALL), id="admin_unknown_objectType"),
        # empty string objectType counts as no context
        pytest.param("admin", "", set(ALL), id="admin_empty_objectType"),
        # dataset context: the 8 dataset tools + show_capabilities
        pytest.param(
            "admin",
            "dataset",
            {
                "superset_explore_database",
                "superset_format_sql",
                "superset_audit_permissions",
                "superset_execute_sql",
                "superset_create_dataset",
                "search_dashboards",
                "get_task_status",
                "list_environments",
                "show_capabilities",
            },
            id="dataset+admin",
        ),
        # migration context for an analyst: admin-only deploy/migrate are gone
        pytest.param(
            "analyst",
            "migration",
            {"search_dashboards", "get_health_summary", "list_environments", "show_capabilities"},
            id="migration+analyst",
        ),
        # unknown role → least privilege: read-risk tools only
        pytest.param("superuser", None, READ_TOOLS, id="unknown_role_read_only"),
        # no role at all → least privilege as well
        pytest.param(None, None, READ_TOOLS, id="no_role_read_only"),
        # role names match exactly: "Admin" is not admin
        pytest.param("Admin", None, READ_TOOLS, id="role_case_sensitive"),
        # unknown role in dashboard context: read tools that fit the dashboard
        pytest.param("guest", "dashboard", DASHBOARD_ANALYST, id="unknown_role_dashboard"),
    ],
)
def test_pipeline_table(role: str | None, object_type: str | None, expected: set[str]):
    assert names(role, object_type) == expected


@pytest.mark.parametrize(
    ("role", "object_type", "count"),
    [
        # the contract catalog's headline numbers (docs/contract.md)
        ("admin", None, 22),
        ("analyst", None, 13),
        ("admin", "dashboard", 9),
        ("analyst", "dashboard", 5),
        ("superuser", None, 11),
    ],
)
def test_pipeline_counts(role: str, object_type: str | None, count: int):
    assert len(names(role, object_type, CONTRACT)) == count


def test_rbac_runs_before_context_and_reasons_name_the_layer():
    result = build_tool_pipeline(ALL, "analyst", "dashboard", policy=DEFAULT_POLICY)
    reasons = {e.name: (e.layer, e.reason) for e in result.excluded}
    # admin-only and off-context: RBAC wins, context never gets to see it
    assert reasons["deploy_dashboard"] == ("rbac", "requires role admin")
    assert reasons["delete_dashboard"] == ("rbac", "requires role admin")
    assert reasons["superset_format_sql"] == ("context", "not relevant to dashboard context")
    assert set(reasons) | set(result.tools) == set(ALL)


def test_log_receives_every_exclusion():
    seen: list[Exclusion] = []
    result = build_tool_pipeline(ALL, "analyst", "dataset", policy=DEFAULT_POLICY, log=seen.append)
    assert seen == result.excluded and len(seen) == len(ALL) - len(result.tools)
    assert all(str(e).startswith(f"{e.name} excluded") for e in seen)


@dataclass
class FakeTool:
    name: str


@pytest.mark.parametrize(
    "make",
    [
        # plain names
        str,
        # ToolSpecs
        TOOL_CATALOG.__getitem__,
        # anything with .name (a LangChain BaseTool, say)
        FakeTool,
    ],
)
def test_pipeline_returns_the_kind_it_was_given(make):
    given = [make(n) for n in ALL]
    result = build_tool_pipeline(given, "admin", "dashboard", policy=DEFAULT_POLICY)
    assert all(any(t is g for g in given) for t in result.tools)
    assert set(result.names) == DASHBOARD_ADMIN
    assert result.names == [n for n in ALL if n in DASHBOARD_ADMIN]  # catalog order kept


def test_tools_outside_the_catalog_are_excluded():
    names = ["drop_everything", "search_dashboards"]
    result = build_tool_pipeline(names, "admin", None, policy=DEFAULT_POLICY)
    assert result.tools == ["search_dashboards"]
    assert result.excluded == [
        Exclusion("drop_everything", "unknown tool (not in the catalog)", "rbac")
    ]


def test_a_tool_without_a_name_is_a_type_error():
    with pytest.raises(TypeError):
        build_tool_pipeline([object()], "admin", None)


@pytest.mark.parametrize(
    ("tool", "role", "outcome", "required"),
    [
        # TEST_EDGE analyst_calls_deploy: denied, names the role it needs
        pytest.param("deploy_dashboard", "analyst", "deny", "admin", id="analyst_calls_deploy"),
        # TEST_EDGE admin_calls_deploy: allowed
        pytest.param("deploy_dashboard", "admin", "allow", None, id="admin_calls_deploy"),
        # TEST_EDGE unknown_tool: an error, never a permission denial
        pytest.param("rm_rf", "admin", "error", None, id="unknown_tool"),
        # unknown tool for an analyst is still an error, not deny
        pytest.param("rm_rf", "analyst", "error", None, id="unknown_tool_analyst"),
        # the two admin-only tools docs/contract.md adds to the contract's seven
        pytest.param("delete_dashboard", "analyst", "deny", "admin", id="analyst_delete"),
        pytest.param("restore_backup", "analyst", "deny", "admin", id="analyst_restore"),
        # analysts may run SQL (its risk is decided per call)
        pytest.param("superset_execute_sql", "analyst", "allow", None, id="analyst_sql"),
        # an unknown role may read ...
        pytest.param("search_dashboards", "viewer", "allow", None, id="unknown_role_reads"),
        # ... but not write, even a tool analysts may run
        pytest.param("superset_create_dataset", "viewer", "deny", "admin", id="unknown_role_write"),
        # nor run SQL, which may write
        pytest.param("superset_execute_sql", None, "deny", "admin", id="no_role_sql"),
    ],
)
def test_enforce_tool_permission_table(tool, role, outcome, required):
    decision = enforce_tool_permission(tool, role, policy=DEFAULT_POLICY)
    assert isinstance(decision, Decision)
    assert decision.outcome == outcome
    assert decision.required_role == required
    assert decision.allowed == (outcome == "allow")
    if outcome == "error":
        assert "unknown tool" in decision.reason
    if outcome == "deny":
        assert decision.reason


def test_every_admin_only_tool_is_denied_to_analysts_and_allowed_to_admins():
    for name in ADMIN_ONLY:
        assert enforce_tool_permission(name, "analyst", policy=DEFAULT_POLICY).outcome == "deny"
        assert enforce_tool_permission(name, "admin", policy=DEFAULT_POLICY).outcome == "allow"


# ---- an alternative that needs a page is offered only on one ------------------------------
@pytest.mark.parametrize(
    ("object_type", "lang", "offered", "absent"),
    [
        # no page: "Check the health of this dashboard" would name nothing
        (None, "en", None, "Check the health of this dashboard"),
        # on a dashboard page it names that dashboard
        ("dashboard", "en", "Check the health of this dashboard", None),
        # a Russian page reads the Russian example
        (
            "dashboard",
            "ru",
            "Проверь здоровье этого дашборда",
            "Check the health of this dashboard",
        ),
    ],
)
def test_alternatives_that_need_a_page_object_come_only_with_one(
    object_type: str | None, lang: str, offered: str | None, absent: str | None
) -> None:
    from app.policy import alternatives_for

    prompts = [
        a["prompt"]
        for a in alternatives_for("analyst", object_type, "start_maintenance", limit=30, lang=lang)
    ]
    if offered is not None:
        assert offered in prompts
    if absent is not None:
        assert absent not in prompts
    if object_type is None:
        assert not any("this dashboard" in p or "этот дашборд" in p for p in prompts)
